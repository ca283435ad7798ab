package dev.caduceus.plugin.runs;

import static dev.caduceus.plugin.runs.RunsHost.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.agent.RunRejectedException;
import dev.caduceus.platform.testkit.HeldTurn;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /v1/runs} on the real host: what reaches the model (the upstream's recorded request),
 * the run's record, idempotency against the real journal, and the host's admission answers. The
 * response store behind {@code previous_response_id} is the real endpoint-responses plugin.
 */
class SubmitTest {
    static RunsHost api;
    /** A stored response: instructions "Be terse.", transcript user "first" → assistant "answer". */
    static String known;
    static String knownSession;

    @BeforeAll
    static void start() throws Exception {
        api = RunsHost.start(b -> b.plugins("endpoint-responses"));
        api.upstream.enqueue(Turn.text("answer"));
        var created = api.http.post("/v1/responses", "{\"model\":\"hermes-agent\",\"input\":\"first\","
                + "\"instructions\":\"Be terse.\",\"store\":true}");
        assertEquals(200, created.status(), created.body());
        known = created.json().path("id").asText();
        knownSession = created.header("X-Hermes-Session-Id").orElseThrow();
    }

    @AfterAll
    static void stop() {
        api.close();
    }

    /** Submits, waits for the run to complete, and returns its status document. */
    private static com.fasterxml.jackson.databind.JsonNode run(String body, String... headers) throws Exception {
        return api.awaitStatus(api.started(body, headers), "completed");
    }

    private static String systemPrompt() {
        var first = api.lastModelRequest().path("messages").get(0);
        return first.path("role").asText().equals("system") ? first.path("content").asText() : "";
    }

    @Test
    void answers202StartedWithTheRunsLocation() throws Exception {
        var ex = api.submit("{\"input\":\"hello\"}");
        assertEquals(202, ex.status(), ex.body());
        var id = ex.json().path("run_id").asText();
        assertTrue(id.matches("run_[0-9a-f]{32}"), id);
        assertEquals("{\"run_id\":\"" + id + "\",\"status\":\"started\",\"replayed\":false}", ex.body());
        assertEquals(Optional.of("/v1/runs/" + id), ex.header("Location"));
        assertTrue(ex.header("Idempotency-Replayed").isEmpty());
        assertTrue(ex.header("X-Hermes-Session-Key").isEmpty());
        api.awaitStatus(id, "completed");
    }

    @Test
    void aStringInputIsOneUserMessage() throws Exception {
        var view = run("{\"input\":\"hello\"}");
        assertEquals("user:hello|", api.lastModelMessages());
        assertEquals(ScriptedUpstream.MODEL, api.lastModelRequest().path("model").asText(), "the configured model");
        assertEquals(view.path("run_id").asText(), view.path("session_id").asText(), "no session id: the host uses the run id");
        assertEquals("hermes-agent", view.path("model").asText(), "the advertised name is recorded");
    }

    @Test
    void earlierArrayElementsBecomeFlattenedHistoryAndTheLastKeepsItsImage() throws Exception {
        run("{\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"a\"},"
                + "{\"type\":\"image_url\",\"image_url\":\"https://x/old.png\"},{\"type\":\"input_text\",\"text\":\"b\"}]},"
                + "{\"role\":\"assistant\",\"content\":\"ok\"},{\"role\":\"tool\",\"content\":\"dropped\"},"
                + "{\"role\":\"user\",\"content\":\"\"},\"bare strings have no role\","
                + "{\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"look\"},"
                + "{\"type\":\"input_image\",\"image_url\":\"https://x/new.png\",\"detail\":\"low\"}]}]}");
        assertEquals("user:a\nb|assistant:ok|user:look|", api.lastModelMessages());
        var last = api.lastModelRequest().path("messages").get(api.lastModelRequest().path("messages").size() - 1);
        assertEquals("[{\"type\":\"text\",\"text\":\"look\"},{\"type\":\"image_url\",\"image_url\":"
                + "{\"url\":\"https://x/new.png\",\"detail\":\"low\"}}]", last.path("content").toString());
        assertFalse(api.lastModelRequest().toString().contains("old.png"), "history is flattened to text");
    }

    @Test
    void aBareLastElementIsTheMessageItself() throws Exception {
        run("{\"input\":[{\"role\":\"assistant\",\"content\":\"before\"},\"now this\"]}");
        assertEquals("assistant:before|user:now this|", api.lastModelMessages());
    }

    @Test
    void conversationHistoryReplacesTheArrayPrefixAndTheChain() throws Exception {
        var view = run("{\"input\":[{\"role\":\"user\",\"content\":\"prefix\"},{\"role\":\"user\",\"content\":\"now\"}],"
                + "\"previous_response_id\":\"" + known + "\","
                + "\"conversation_history\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"h1\"}]},"
                + "{\"role\":\"assistant\",\"content\":42},{\"role\":\"system\",\"content\":\"dropped\"}]}");
        assertEquals("user:h1|assistant:42|user:now|", api.lastModelMessages());
        // History came from the body; session and instructions still come from the chain.
        assertEquals(knownSession, view.path("session_id").asText());
        assertTrue(systemPrompt().contains("Be terse."), systemPrompt());
    }

    @Test
    void anEmptyConversationHistoryIsStillTheHistory() throws Exception {
        run("{\"input\":[{\"role\":\"user\",\"content\":\"prefix\"},\"now\"],\"conversation_history\":[]}");
        assertEquals("user:now|", api.lastModelMessages());
    }

    @Test
    void previousResponseGivesHistorySessionAndInstructions() throws Exception {
        var view = run("{\"input\":[{\"role\":\"user\",\"content\":\"ignored prefix\"},\"next\"],"
                + "\"previous_response_id\":\"" + known + "\"}");
        assertEquals("user:first|assistant:answer|user:next|", api.lastModelMessages());
        assertEquals(knownSession, view.path("session_id").asText());
        assertTrue(systemPrompt().contains("Be terse."), systemPrompt());
    }

    @Test
    void theBodyWinsOverTheChainForSessionAndInstructions() throws Exception {
        var view = run("{\"input\":\"next\",\"previous_response_id\":\"" + known + "\",\"session_id\":\"mine\","
                + "\"instructions\":\"Be verbose.\"}");
        assertEquals("mine", view.path("session_id").asText());
        assertTrue(systemPrompt().contains("Be verbose."), systemPrompt());
        assertFalse(systemPrompt().contains("Be terse."), systemPrompt());
        assertEquals("user:first|assistant:answer|user:next|", api.lastModelMessages());
    }

    @Test
    void anUnknownPreviousResponseIsIgnored() throws Exception {
        var view = run("{\"input\":[{\"role\":\"user\",\"content\":\"prefix\"},\"next\"],"
                + "\"previous_response_id\":\"resp_unknown\"}");
        assertEquals("user:prefix|user:next|", api.lastModelMessages());
        assertEquals(view.path("run_id").asText(), view.path("session_id").asText());
    }

    @Test
    void withoutAResponseStoreThePreviousResponseIsIgnored() throws Exception {
        try (var bare = RunsHost.start()) {
            var id = bare.started("{\"input\":\"next\",\"previous_response_id\":\"" + known + "\"}");
            bare.awaitStatus(id, "completed");
            assertEquals("user:next|", bare.lastModelMessages());
        }
    }

    @Test
    void aBareModelIsSentUpstreamOnRuns() throws Exception {
        var view = run("{\"input\":\"hi\",\"model\":\"gpt-4o\","
                + "\"model_options\":{\"reasoning_effort\":\"high\",\"service_tier\":\"flex\",\"other\":1}}");
        var sent = api.lastModelRequest();
        assertEquals("gpt-4o", sent.path("model").asText());
        assertEquals("high", sent.path("reasoning_effort").asText());
        assertEquals("flex", sent.path("service_tier").asText());
        assertFalse(sent.has("other"), "only known model options pass");
        assertEquals("gpt-4o", view.path("model").asText());
    }

    @Test
    void theAdvertisedModelMeansTheConfiguredOne() throws Exception {
        var view = run("{\"input\":\"hi\",\"model\":\"hermes-agent\"}");
        assertEquals(ScriptedUpstream.MODEL, api.lastModelRequest().path("model").asText());
        assertEquals("hermes-agent", view.path("model").asText());
    }

    @Test
    void sessionKeyIsEchoedAndScopesTheRunAndTheSessionIdHeaderIsIgnored() throws Exception {
        var ex = api.submit("{\"input\":\"hi\"}", "X-Hermes-Session-Key", "agent:main:user-42",
                "X-Hermes-Session-Id", "bad id with spaces");
        assertEquals(202, ex.status(), ex.body());
        assertEquals(Optional.of("agent:main:user-42"), ex.header("X-Hermes-Session-Key"));
        var view = api.awaitStatus(ex.json().path("run_id").asText(), "completed");
        assertEquals(view.path("run_id").asText(), view.path("session_id").asText(), "the header is not read");
    }

    @Test
    void anIdempotencyKeyIsFingerprintedOverTheCanonicalBodyAndTheSessionKey() throws Exception {
        var first = api.submit("{\"input\":\"hi\",\"session_id\":\"s1\"}", "Idempotency-Key", "fp-1",
                "X-Hermes-Session-Key", "sk");
        var id = first.json().path("run_id").asText();
        api.awaitStatus(id, "completed");
        var reordered = api.submit("{ \"session_id\" : \"s1\", \"input\" : \"hi\" }", "Idempotency-Key", "fp-1",
                "X-Hermes-Session-Key", "sk");
        assertEquals(id, reordered.json().path("run_id").asText(), "same fingerprint: " + reordered.body());
        assertError(api.submit("{\"input\":\"hi\",\"session_id\":\"s1\"}", "Idempotency-Key", "fp-1"), 409,
                "idempotency_key_conflict", null);
    }

    @Test
    void aReplayAnswersTheOriginalRunWithItsCurrentStatus() throws Exception {
        var held = new HeldTurn(Turn.text("x"));
        api.upstream.enqueue(held);
        var first = api.submit("{\"input\":\"hi\"}", "Idempotency-Key", "key-1");
        var id = first.json().path("run_id").asText();
        held.awaitArrival();
        try {
            api.awaitStatus(id, "running");
            var again = api.submit("{ \"input\" : \"hi\" }", "Idempotency-Key", "key-1");
            assertEquals(202, again.status(), again.body());
            assertEquals("{\"run_id\":\"" + id + "\",\"status\":\"running\",\"replayed\":true}", again.body());
            assertEquals(Optional.of("true"), again.header("Idempotency-Replayed"));
            assertEquals(Optional.of("/v1/runs/" + id), again.header("Location"));
        } finally {
            held.release();
        }
        api.awaitStatus(id, "completed");
        assertEquals("completed", api.submit("{\"input\":\"hi\"}", "Idempotency-Key", "key-1").json()
                .path("status").asText());
    }

    @Test
    void theSameKeyWithAnotherPayloadIsAConflictNotToBeRetried() throws Exception {
        var id = api.submit("{\"input\":\"hi\"}", "Idempotency-Key", "key-2").json().path("run_id").asText();
        api.awaitStatus(id, "completed");
        var ex = api.submit("{\"input\":\"something else\"}", "Idempotency-Key", "key-2");
        assertError(ex, 409, "idempotency_key_conflict", RunRejectedException.IDEMPOTENCY_CONFLICT_MESSAGE);
        assertEquals(Optional.of("false"), ex.header("x-should-retry"));
        var otherScope = api.submit("{\"input\":\"hi\"}", "Idempotency-Key", "key-2", "X-Hermes-Session-Key", "other");
        assertError(otherScope, 409, "idempotency_key_conflict", null);
    }

    @Test
    void aReplayAnswersEvenAtTheConcurrencyCapAndABadBodyIsStillA400() throws Exception {
        try (var capped = RunsHost.start(b -> b.env("CADUCEUS__SERVER__MAX_CONCURRENT_RUNS", "1"))) {
            var held = new HeldTurn(Turn.text("x"));
            capped.upstream.enqueue(held);
            var id = capped.submit("{\"input\":\"hi\"}", "Idempotency-Key", "key-1").json().path("run_id").asText();
            held.awaitArrival();
            try {
                assertEquals(id, capped.submit("{\"input\":\"hi\"}", "Idempotency-Key", "key-1").json()
                        .path("run_id").asText());
                var fresh = capped.submit("{\"input\":\"hi\"}", "Idempotency-Key", "key-2");
                assertError(fresh, 429, "rate_limit_exceeded", "Too many concurrent runs (max 1)");
                assertEquals(Optional.of("1"), fresh.header("Retry-After"));
                assertError(capped.submit("{}"), 400, "missing_input", null);
            } finally {
                held.release();
            }
            capped.awaitStatus(id, "completed");
        }
    }

    @Test
    void noModelIsTheHostsAnswer() throws Exception {
        try (var noModel = dev.caduceus.platform.testkit.TestHost.builder().plugins("endpoint-runs").start()) {
            var ex = noModel.http().post("/v1/runs", "{\"input\":\"hi\"}");
            assertError(ex, 503, "model_not_configured", null);
            assertEquals(Optional.of("false"), ex.header("x-should-retry"));
            assertNotEquals(0, ex.error().path("message").asText().length());
        }
    }
}
