package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.host.store.Database;
import dev.caduceus.platform.host.store.Migrations;
import dev.caduceus.platform.host.store.PlatformMigrations;
import dev.caduceus.spi.message.Message;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * V5 (the list columns) on a home written by the build before it: a named key's two-turn
 * conversation on one chain and a V1-style row of the admin's, written as V4 left them. The real host
 * boots on it: the migration orders and links the old rows (parents from chain positions, the
 * conversation name of a head), the plugin's start fills status, model and previews from envelope and
 * transcript, and the old conversation lists, filters, continues and deletes as a new one would.
 */
class ListColumnsMigrationTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String A = "resp_0000000000000000000000000aa1";
    static final String B = "resp_0000000000000000000000000bb2";
    static final String V1 = "resp_00000000000000000000000000v1";

    @TempDir Path home;

    static String envelope(String id, String answer) {
        return "{\"id\":\"" + id + "\",\"object\":\"response\",\"status\":\"completed\",\"created_at\":1,\"model\":\"old-model\","
                + "\"output\":[{\"id\":\"msg_1\",\"type\":\"message\",\"status\":\"completed\",\"role\":\"assistant\","
                + "\"content\":[{\"type\":\"output_text\",\"text\":\"" + answer + "\",\"annotations\":[]}]}],"
                + "\"previous_response_id\":null}";
    }

    private void writeOldHome() throws Exception {
        try (var before = Database.open(home.resolve("caduceus.db"))) {
            Migrations.apply(before, Migrations.PLATFORM, PlatformMigrations.scripts());
            Migrations.apply(before, "endpoint-responses", Stream.of("V1__responses.sql", "V2__chain_messages.sql",
                    "V3__input_seq.sql", "V4__owners.sql").map(OwnerMigrationTest::script).toList());
            var messages = List.of(Message.user("old one"), Message.assistant("first answer"), Message.user("old two"),
                    Message.assistant("second answer"));
            var transcript = JSON.writeValueAsString(List.of(Message.user("v1 question"), Message.assistant("v1 answer")));
            before.write(sql -> {
                for (int i = 0; i < messages.size(); i++)
                    sql.update("INSERT INTO response_messages (chain_id, seq, message_json) VALUES ('c1', ?, ?)", i + 1,
                            JSON.writeValueAsString(messages.get(i)));
                var insert = """
                        INSERT INTO responses (id, owner, envelope, transcript, instructions, session_id, streamed,
                            created_at, accessed_at, chain_id, base_seq, last_seq, input_seq)
                        VALUES (?, ?, ?, ?, NULL, 'sess', 0, ?, ?, ?, ?, ?, ?)""";
                sql.update(insert, A, "alice", envelope(A, "first answer"), "[]", 1768467000L, 1, "c1", 0, 2, 1);
                sql.update(insert, B, "alice", envelope(B, "second answer"), "[]", 1768467060L, 2, "c1", 2, 4, 3);
                sql.update(insert, V1, "admin", envelope(V1, "v1 answer"), transcript, 1768466000L, 3, null, null, null, null);
                sql.update("INSERT INTO conversations (owner, name, response_id) VALUES ('alice', 'c', ?)", B);
                return null;
            });
        }
    }

    @Test
    void oldRowsListAndTheirConversationGoesOn() throws Exception {
        writeOldHome();
        try (var api = ResponsesHost.start(home)) { // its boot applies V5 and fills the summaries
            var alice = api.as(api.host.addKey("alice"));
            var page = alice.http().get("/v1/responses").json();
            assertEquals(List.of(B, A), ResponseListTest.ids(page));
            var b = ResponseListTest.item(page, B);
            assertEquals("completed", b.path("status").asText());
            assertEquals("old-model", b.path("model").asText());
            assertEquals("old two", b.path("input_preview").asText());
            assertEquals("second answer", b.path("output_preview").asText());
            assertEquals("c", b.path("conversation").asText(), "the head of a name from before V5");
            assertEquals(1768467060L, b.path("created_at").asLong());
            var a = ResponseListTest.item(page, A);
            assertEquals("old one", a.path("input_preview").asText());
            assertTrue(a.path("conversation").isNull(), "only the head was known to be the conversation's");

            var v1 = ResponseListTest.item(api.http().get("/v1/responses?owner=admin").json(), V1);
            assertEquals("v1 question", v1.path("input_preview").asText());
            assertEquals("v1 answer", v1.path("output_preview").asText());

            var conversations = alice.http().get("/api/conversations").json().path("conversations");
            assertEquals(1, conversations.size(), conversations.toString());
            assertEquals(2, conversations.get(0).path("turns").asInt(), "the parent found from the chain");
            assertEquals(List.of(B, A), ResponseListTest.ids(alice.http().get("/v1/responses?conversation=c").json()));

            alice.answers("third answer");
            var next = alice.create("{\"input\":\"new three\",\"conversation\":\"c\"}");
            assertEquals("user:old one|assistant:first answer|user:old two|assistant:second answer|user:new three|",
                    api.lastModelTexts());
            assertEquals(List.of(next, B, A), ResponseListTest.ids(alice.http().get("/v1/responses?conversation=c").json()));
            var deleted = alice.http().delete("/api/conversations/c");
            assertEquals("{\"deleted\":true,\"name\":\"c\",\"responses_deleted\":3}", deleted.body());
            assertEquals(List.of(), new ArrayList<>(api.rows("SELECT id FROM responses WHERE owner = 'alice'")));
            assertEquals(List.of(), api.rows("SELECT seq FROM response_messages WHERE chain_id = 'c1'"),
                    "the old chain's messages are pruned with its last response");
        }
    }
}
