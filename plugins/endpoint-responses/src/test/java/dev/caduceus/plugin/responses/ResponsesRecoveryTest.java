package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.testkit.Eventually;
import dev.caduceus.testkit.ScriptedRuns;
import dev.caduceus.testkit.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process that dies mid-stream ({@code kill -9}) never writes the disconnect snapshot, so the
 * response stayed {@code in_progress} forever; the next start marks it {@code incomplete}. Two
 * plugin instances on one database play the two processes: the first is left streaming, as a
 * killed process leaves it, while the second starts.
 */
class ResponsesRecoveryTest {
    @TempDir Path dir;
    TestDatabase db;

    @BeforeEach
    void setUp() {
        db = TestDatabase.open(dir, "endpoint-responses");
    }

    @AfterEach
    void tearDown() {
        db.close();
    }

    private String envelopeOf(String id) {
        return db.read(sql -> sql.queryOne("SELECT envelope FROM responses WHERE id = ?", r -> r.getString(1), id))
                .orElseThrow();
    }

    @Test
    void aResponseStreamingWhenTheProcessDiedIsIncompleteAfterTheNextStart() throws Exception {
        var dead = new ResponsesFixture(db).answers("done"); // the first run completes, the second hangs
        dead.runs.script(ScriptedRuns.Script.hanging(new RunEvent.TextDelta("partial")));
        var finished = dead.post("{\"input\":\"earlier\",\"stream\":true}");
        var finishedId = ResponsesFixture.data(finished.stream()).getFirst().get("response").get("id").asText();
        var finishedEnvelope = envelopeOf(finishedId);

        var exchange = dead.exchange("{\"input\":\"long work\",\"stream\":true}");
        var streaming = Thread.ofVirtual().start(() -> {
            try {
                exchange.call(dead.handlers.get("POST /v1/responses"));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        var id = awaitInProgress(finishedId);
        assertEquals("in_progress", dead.get(id).responseBody().get("status").asText(), "what a GET read, forever");

        var restarted = new ResponsesFixture(db); // the next process: start() runs the recovery
        var stored = restarted.get(id).responseBody();
        assertEquals("incomplete", stored.get("status").asText(), stored.toString());
        assertEquals(id, stored.get("id").asText());
        var replay = ResponsesFixture.data(restarted.get(id, "stream", "true").stream());
        assertEquals("response.created", replay.getFirst().get("type").asText());
        var last = replay.getLast();
        assertEquals("response.incomplete", last.get("type").asText(), replay.toString());
        assertEquals("incomplete", last.get("response").get("status").asText());
        assertEquals(replay.size() - 1, last.get("sequence_number").asInt(), "numbered after the journal");
        assertEquals(finishedEnvelope, envelopeOf(finishedId), "a finished response is left as it was");

        var again = new ResponsesFixture(db); // a later start finds nothing left to recover
        assertEquals("incomplete", again.get(id).responseBody().get("status").asText());

        exchange.disconnect(); // end the "dead" process's stream so its thread finishes before the database closes
        streaming.join(TimeUnit.SECONDS.toMillis(10));
    }

    @Test
    void unfinishedItemsOfTheEnvelopeBecomeIncompleteToo() throws Exception {
        var api = new ResponsesFixture(db).answers("done");
        var finished = api.post("{\"input\":\"a\"}");
        var id = finished.responseBody().get("id").asText();
        var envelope = (com.fasterxml.jackson.databind.node.ObjectNode) finished.responseBody().deepCopy();
        envelope.put("status", "in_progress");
        ((com.fasterxml.jackson.databind.node.ObjectNode) envelope.get("output").get(0)).put("status", "in_progress");
        db.write(sql -> sql.update("UPDATE responses SET envelope = ? WHERE id = ?", envelope.toString(), id));

        var store = new ResponseStore(db, api.ctx.json(), 10);
        assertEquals(List.of(id), store.interruptInProgress());
        var recovered = api.get(id).responseBody();
        assertEquals("incomplete", recovered.get("status").asText());
        assertEquals("incomplete", recovered.get("output").get(0).get("status").asText());
        assertEquals(List.of(), store.interruptInProgress());
    }

    /**
     * The id of the response other than {@code other} once its stream has journaled the text delta:
     * the in-progress snapshot is stored, and the stream writes nothing more until it is cancelled.
     */
    private String awaitInProgress(String other) throws InterruptedException {
        return Eventually.await(Duration.ofSeconds(10), "the stream journaled its text",
                () -> db.read(sql -> sql.queryOne("SELECT response_id FROM response_events WHERE response_id <> ? "
                        + "AND type = 'response.output_text.delta'", r -> r.getString(1), other)).orElse(null),
                java.util.Objects::nonNull);
    }
}
