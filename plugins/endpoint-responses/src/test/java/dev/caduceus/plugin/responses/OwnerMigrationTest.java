package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.host.store.Database;
import dev.caduceus.platform.host.store.Migrations;
import dev.caduceus.platform.host.store.PlatformMigrations;
import dev.caduceus.platform.host.store.Script;
import dev.caduceus.spi.http.Caller;
import dev.caduceus.spi.message.Message;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * V4 on a home written by the build before it: the real host boots on a {@code caduceus.db} whose
 * schema is the platform's up to V2 and this plugin's up to V3, with one V1-style row, and its own
 * migrations make every response and conversation name from before keys had names the admin key's,
 * read as it was for the admin key and invisible to a named key.
 */
class OwnerMigrationTest {
    static final String FOLDER = "db/migration/endpoint-responses/sqlite/";
    static final String OLD = "resp_000000000000000000000000old1";

    @TempDir Path home;

    /** The database as the build before owners left it. */
    private void writeOldHome() throws Exception {
        var transcript = new ObjectMapper().writeValueAsString(
                List.of(Message.user("old question"), Message.assistant("old answer")));
        try (var before = Database.open(home.resolve("caduceus.db"))) {
            Migrations.apply(before, Migrations.PLATFORM,
                    PlatformMigrations.scripts().stream().filter(s -> s.version() <= 2).toList());
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
    }

    @Test
    void rowsFromBeforeOwnersBelongToTheAdminKey() throws Exception {
        writeOldHome();
        try (var api = ResponsesHost.start(home)) { // its boot applies V4
            assertEquals(List.of("admin"), api.rows("SELECT owner FROM responses"));
            assertEquals(List.of("admin c " + OLD), api.rows(
                    "SELECT owner || ' ' || name || ' ' || response_id FROM conversations"));

            var alice = api.as(api.host.addKey("alice"));
            assertEquals(404, alice.get(OLD).status());
            alice.answers("ok");
            alice.create("{\"input\":\"next\",\"conversation\":\"c\"}");
            assertEquals("user:next|", api.lastModelTexts(), "alice's own new 'c'");

            assertEquals(200, api.get(OLD).status());
            api.answers("ok");
            var next = api.post("{\"input\":\"next\",\"conversation\":\"c\"}");
            assertEquals(200, next.status(), next.body());
            assertEquals("user:old question|assistant:old answer|user:next|", api.lastModelTexts(),
                    "the admin's 'c' goes on");
            assertEquals("sess-old", next.header("X-Hermes-Session-Id").orElseThrow());
            try (var history = api.history()) {
                assertTrue(history.load(Caller.ADMIN, OLD).isPresent());
                assertTrue(history.load("alice", OLD).isEmpty());
            }
        }
    }

    static Script script(String file) {
        try (var in = OwnerMigrationTest.class.getClassLoader().getResourceAsStream(FOLDER + file)) {
            return Script.fromFileName(file, new String(in.readAllBytes(), StandardCharsets.UTF_8), FOLDER + file)
                    .orElseThrow();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
