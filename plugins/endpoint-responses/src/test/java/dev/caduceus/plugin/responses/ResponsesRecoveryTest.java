package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.caduceus.platform.testkit.HeldTurn;
import dev.caduceus.platform.testkit.Turn;
import java.nio.file.Path;
import java.sql.DriverManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process that dies mid-stream ({@code kill -9}) never writes the disconnect snapshot, so the
 * response stayed {@code in_progress} forever; the next start marks it {@code incomplete}. Two real
 * hosts on one home play the two processes: the first is left streaming, its model held, as a killed
 * process leaves it, while the second starts.
 */
class ResponsesRecoveryTest {
    @TempDir Path home;

    @Test
    void aResponseStreamingWhenTheProcessDiedIsIncompleteAfterTheNextStart() throws Exception {
        try (var dead = ResponsesHost.start(home)) {
            dead.answers("done");
            var finishedId = ResponsesHost.data(dead.stream("{\"input\":\"earlier\",\"stream\":true}")).getFirst()
                    .get("response").get("id").asText();
            var finishedEnvelope = dead.get(finishedId).body();

            var held = new HeldTurn(Turn.text("too late"));
            dead.upstream.enqueue(Turn.textChunks("partial").withToolCalls(Turn.ToolCall.of("call_1", "terminal", "{}")));
            dead.upstream.enqueue(held);
            try (var streaming = dead.postStream("{\"input\":\"long work\",\"stream\":true}")) {
                var id = streaming.until("response.output_text.delta").getFirst().data().get("response").get("id").asText();
                held.awaitArrival(); // the text is journaled; nothing more comes until the model answers
                assertEquals("in_progress", dead.get(id).json().get("status").asText(), "what a GET read, forever");

                try (var restarted = ResponsesHost.start(home)) { // the next process: the plugin's start recovers
                    var stored = restarted.get(id).json();
                    assertEquals("incomplete", stored.get("status").asText(), stored.toString());
                    assertEquals(id, stored.get("id").asText());
                    assertEquals("incomplete", ResponseListTest.item(restarted.http().get("/v1/responses").json(), id)
                            .path("status").asText(), "the list's status column too");
                    var replay = ResponsesHost.data(restarted.replay(id, "stream", "true"));
                    assertEquals("response.created", replay.getFirst().get("type").asText());
                    var last = replay.getLast();
                    assertEquals("response.incomplete", last.get("type").asText(), replay.toString());
                    assertEquals("incomplete", last.get("response").get("status").asText());
                    assertEquals(replay.size() - 1, last.get("sequence_number").asInt(), "numbered after the journal");
                    assertEquals(finishedEnvelope, restarted.get(finishedId).body(), "a finished response is left as it was");
                }
                try (var again = ResponsesHost.start(home)) { // a later start finds nothing left to recover
                    assertEquals("incomplete", again.get(id).json().get("status").asText());
                }
            } finally {
                held.release(); // end the "dead" process's stream before its host closes
            }
        }
    }

    @Test
    void unfinishedItemsOfTheEnvelopeBecomeIncompleteToo() throws Exception {
        String id;
        try (var api = ResponsesHost.start(home)) {
            api.answers("done");
            var finished = api.post("{\"input\":\"a\"}").json();
            id = finished.get("id").asText();
            var envelope = (com.fasterxml.jackson.databind.node.ObjectNode) finished.deepCopy();
            envelope.put("status", "in_progress");
            ((com.fasterxml.jackson.databind.node.ObjectNode) envelope.get("output").get(0)).put("status", "in_progress");
            // What a process killed between two snapshots leaves in the store (the host is stopped meanwhile).
            api.host.close();
            try (var sql = DriverManager.getConnection("jdbc:sqlite:" + home.resolve("caduceus.db"));
                 var update = sql.prepareStatement("UPDATE responses SET envelope = ? WHERE id = ?")) {
                update.setString(1, envelope.toString());
                update.setString(2, id);
                assertEquals(1, update.executeUpdate());
            }
        }
        try (var restarted = ResponsesHost.start(home)) {
            var recovered = restarted.get(id).json();
            assertEquals("incomplete", recovered.get("status").asText());
            assertEquals("incomplete", recovered.get("output").get(0).get("status").asText());
        }
    }
}
