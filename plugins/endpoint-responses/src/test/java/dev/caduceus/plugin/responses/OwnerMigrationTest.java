package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.agent.ResponseHistory;
import dev.caduceus.platform.store.Database;
import dev.caduceus.platform.store.Migrations;
import dev.caduceus.platform.store.Script;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.http.Caller;
import dev.caduceus.testkit.TestDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * V4 on a store written by the build before it: every response and conversation name from before
 * keys had names is the admin key's, and reads as it did for the admin key.
 */
class OwnerMigrationTest {
    static final String FOLDER = "db/migration/endpoint-responses/sqlite/";
    static final String OLD = "resp_000000000000000000000000old1";

    @TempDir Path dir;

    @Test
    void rowsFromBeforeOwnersBelongToTheAdminKey() throws Exception {
        var transcript = new ObjectMapper().writeValueAsString(
                List.of(Message.user("old question"), Message.assistant("old answer")));
        try (var before = Database.open(dir.resolve("test.db"))) { // the schema up to V3, with one V1-style row
            Migrations.apply(before, "endpoint-responses", Stream.of("V1__responses.sql", "V2__chain_messages.sql",
                    "V3__input_seq.sql").map(OwnerMigrationTest::script).toList());
            before.write(sql -> {
                sql.update("""
                        INSERT INTO responses (id, envelope, transcript, instructions, session_id, streamed, created_at,
                            accessed_at) VALUES (?, ?, ?, NULL, 'sess-old', 0, 1768467000, 1)""",
                        OLD, "{\"id\":\"" + OLD + "\",\"object\":\"response\",\"status\":\"completed\",\"output\":[]}",
                        transcript);
                sql.update("INSERT INTO conversations (name, response_id) VALUES ('c', ?)", OLD);
                return null;
            });
        }
        try (var db = TestDatabase.open(dir, "endpoint-responses")) { // applies V4
            assertEquals(List.of("admin"), db.read(sql -> sql.query("SELECT owner FROM responses", r -> r.getString(1))));
            assertEquals(List.of("admin c " + OLD), db.read(sql -> sql.query(
                    "SELECT owner || ' ' || name || ' ' || response_id FROM conversations", r -> r.getString(1))));
            var api = new ResponsesFixture(db).answers("ok");
            assertEquals(404, api.as(Caller.tenant("alice")).get(OLD).status());
            api.as(Caller.tenant("alice")).post("{\"input\":\"next\",\"conversation\":\"c\"}");
            assertEquals("user:next|", ResponsesFixture.texts(api.lastRequest().messages()), "alice's own new 'c'");

            assertEquals(200, api.as(Caller.ADMIN_CALLER).get(OLD).status());
            api.post("{\"input\":\"next\",\"conversation\":\"c\"}");
            assertEquals("user:old question|assistant:old answer|user:next|",
                    ResponsesFixture.texts(api.lastRequest().messages()), "the admin's 'c' goes on");
            assertEquals("sess-old", api.lastRequest().sessionId());
            assertTrue(((ResponseHistory) api.plugin.services(api.ctx).getFirst()).load(Caller.ADMIN, OLD).isPresent());
        }
    }

    private static Script script(String file) {
        try (var in = OwnerMigrationTest.class.getClassLoader().getResourceAsStream(FOLDER + file)) {
            return Script.fromFileName(file, new String(in.readAllBytes(), StandardCharsets.UTF_8), FOLDER + file)
                    .orElseThrow();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
