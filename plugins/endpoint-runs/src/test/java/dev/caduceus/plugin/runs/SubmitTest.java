package dev.caduceus.plugin.runs;

import static dev.caduceus.plugin.runs.RunsFixture.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.message.ContentPart;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.agent.ResponseHistory;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunRejectedException;
import dev.caduceus.spi.agent.RunRequest;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SubmitTest {
    static final ResponseHistory.Conversation CHAIN = new ResponseHistory.Conversation("chain-session", "Be terse.",
            List.of(Message.user("first"), Message.assistant("answer")));

    final RunsFixture api = new RunsFixture((owner, id) -> id.equals("resp_known") ? Optional.of(CHAIN) : Optional.empty());

    private static String texts(RunRequest request) {
        var sb = new StringBuilder();
        for (var m : request.messages()) sb.append(m.role()).append(':').append(m.text()).append('|');
        return sb.toString();
    }

    @Test
    void answers202StartedWithTheRunsLocation() throws Exception {
        var ex = api.submit("{\"input\":\"hello\"}");
        assertEquals(202, ex.status());
        var id = ex.responseBody().get("run_id").asText();
        assertEquals("{\"run_id\":\"" + id + "\",\"status\":\"started\",\"replayed\":false}", ex.responseBody().toString());
        assertEquals(Optional.of("/v1/runs/" + id), ex.responseHeader("Location"));
        assertTrue(ex.responseHeader("Idempotency-Replayed").isEmpty());
        assertTrue(ex.responseHeader("X-Hermes-Session-Key").isEmpty());
    }

    @Test
    void aStringInputIsOneUserMessage() throws Exception {
        api.submit("{\"input\":\"hello\"}");
        var request = api.lastRequest();
        assertEquals("user:hello|", texts(request));
        assertNull(request.model());
        assertNull(request.instructions());
        assertNull(request.sessionId(), "no session id: the host uses the run id");
        assertNull(request.sessionKey());
        assertEquals(Map.of("source", "runs", "model", "hermes-agent"), request.metadata(), "the advertised name is echoed");
        assertEquals(List.of(), request.toolsets());
        assertTrue(api.lastOptions().durable());
        assertNull(api.lastOptions().idempotencyKey());
    }

    @Test
    void earlierArrayElementsBecomeFlattenedHistoryAndTheLastKeepsItsImage() throws Exception {
        api.submit("{\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"a\"},"
                + "{\"type\":\"image_url\",\"image_url\":\"https://x/old.png\"},{\"type\":\"input_text\",\"text\":\"b\"}]},"
                + "{\"role\":\"assistant\",\"content\":\"ok\"},{\"role\":\"tool\",\"content\":\"dropped\"},"
                + "{\"role\":\"user\",\"content\":\"\"},\"bare strings have no role\","
                + "{\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"look\"},"
                + "{\"type\":\"input_image\",\"image_url\":\"https://x/new.png\",\"detail\":\"low\"}]}]}");
        var messages = api.lastRequest().messages();
        assertEquals("user:a\nb|assistant:ok|user:look|", texts(api.lastRequest()));
        assertEquals(List.of(new ContentPart.Text("look"), new ContentPart.ImageUrl("https://x/new.png", "low")),
                messages.getLast().content());
    }

    @Test
    void aBareLastElementIsTheMessageItself() throws Exception {
        api.submit("{\"input\":[{\"role\":\"assistant\",\"content\":\"before\"},\"now this\"]}");
        assertEquals("assistant:before|user:now this|", texts(api.lastRequest()));
    }

    @Test
    void conversationHistoryReplacesTheArrayPrefixAndTheChain() throws Exception {
        api.submit("{\"input\":[{\"role\":\"user\",\"content\":\"prefix\"},{\"role\":\"user\",\"content\":\"now\"}],"
                + "\"previous_response_id\":\"resp_known\","
                + "\"conversation_history\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"h1\"}]},"
                + "{\"role\":\"assistant\",\"content\":42},{\"role\":\"system\",\"content\":\"dropped\"}]}");
        assertEquals("user:h1|assistant:42|user:now|", texts(api.lastRequest()));
        // History came from the body; session and instructions still come from the chain.
        assertEquals("chain-session", api.lastRequest().sessionId());
        assertEquals("Be terse.", api.lastRequest().instructions());
    }

    @Test
    void anEmptyConversationHistoryIsStillTheHistory() throws Exception {
        api.submit("{\"input\":[{\"role\":\"user\",\"content\":\"prefix\"},\"now\"],\"conversation_history\":[]}");
        assertEquals("user:now|", texts(api.lastRequest()));
    }

    @Test
    void previousResponseGivesHistorySessionAndInstructions() throws Exception {
        api.submit("{\"input\":[{\"role\":\"user\",\"content\":\"ignored prefix\"},\"next\"],"
                + "\"previous_response_id\":\"resp_known\"}");
        var request = api.lastRequest();
        assertEquals("user:first|assistant:answer|user:next|", texts(request));
        assertEquals("chain-session", request.sessionId());
        assertEquals("Be terse.", request.instructions());
    }

    @Test
    void theBodyWinsOverTheChainForSessionAndInstructions() throws Exception {
        api.submit("{\"input\":\"next\",\"previous_response_id\":\"resp_known\",\"session_id\":\"mine\","
                + "\"instructions\":\"Be verbose.\"}");
        assertEquals("mine", api.lastRequest().sessionId());
        assertEquals("Be verbose.", api.lastRequest().instructions());
        assertEquals("user:first|assistant:answer|user:next|", texts(api.lastRequest()));
    }

    @Test
    void anUnknownPreviousResponseIsIgnored() throws Exception {
        var ex = api.submit("{\"input\":[{\"role\":\"user\",\"content\":\"prefix\"},\"next\"],"
                + "\"previous_response_id\":\"resp_unknown\"}");
        assertEquals(202, ex.status());
        assertEquals("user:prefix|user:next|", texts(api.lastRequest()));
        assertNull(api.lastRequest().sessionId());
    }

    @Test
    void withoutAResponseStoreThePreviousResponseIsIgnored() throws Exception {
        var bare = new RunsFixture();
        assertEquals(202, bare.submit("{\"input\":\"next\",\"previous_response_id\":\"resp_known\"}").status());
        assertEquals("user:next|", texts(bare.lastRequest()));
    }

    @Test
    void aBareModelIsSentUpstreamOnRuns() throws Exception {
        api.submit("{\"input\":\"hi\",\"model\":\"gpt-4o\",\"provider\":\"openai\","
                + "\"model_options\":{\"reasoning_effort\":\"high\",\"service_tier\":\"flex\",\"other\":1}}");
        var request = api.lastRequest();
        assertEquals("gpt-4o", request.model());
        assertEquals("high", request.options().reasoningEffort());
        assertEquals("{\"service_tier\":\"flex\"}", request.options().extra().toString());
        assertEquals(Map.of("source", "runs", "model", "gpt-4o", "provider", "openai"), request.metadata());
    }

    @Test
    void theAdvertisedModelMeansTheConfiguredOne() throws Exception {
        api.submit("{\"input\":\"hi\",\"model\":\"hermes-agent\"}");
        assertNull(api.lastRequest().model());
        assertEquals("hermes-agent", api.lastRequest().metadata().get("model"));
    }

    @Test
    void sessionKeyIsPassedOnAndEchoedAndTheSessionIdHeaderIgnored() throws Exception {
        var ex = api.submit("{\"input\":\"hi\"}", "X-Hermes-Session-Key", "agent:main:user-42",
                "X-Hermes-Session-Id", "bad id with spaces\u0000");
        assertEquals(202, ex.status());
        assertEquals(Optional.of("agent:main:user-42"), ex.responseHeader("X-Hermes-Session-Key"));
        assertEquals("agent:main:user-42", api.lastRequest().sessionKey());
        assertNull(api.lastRequest().sessionId());
    }

    @Test
    void anIdempotencyKeyIsSubmittedWithTheFingerprint() throws Exception {
        var body = "{\"input\":\"hi\",\"session_id\":\"s1\"}";
        api.submit(body, "Idempotency-Key", "key-1", "X-Hermes-Session-Key", "sk");
        assertEquals("key-1", api.lastOptions().idempotencyKey());
        assertEquals(Fingerprint.of(api.json(body), "sk"), api.lastOptions().fingerprint());
    }

    @Test
    void aReplayAnswersTheOriginalRunWithItsCurrentStatus() throws Exception {
        var first = api.submit("{\"input\":\"hi\"}", "Idempotency-Key", "key-1");
        var id = first.responseBody().get("run_id").asText();
        api.runs.append(id, new RunEvent.TextDelta("x"));
        var again = api.submit("{ \"input\" : \"hi\" }", "Idempotency-Key", "key-1");
        assertEquals(202, again.status());
        assertEquals("{\"run_id\":\"" + id + "\",\"status\":\"running\",\"replayed\":true}", again.responseBody().toString());
        assertEquals(Optional.of("true"), again.responseHeader("Idempotency-Replayed"));
        assertEquals(Optional.of("/v1/runs/" + id), again.responseHeader("Location"));
        assertTrue(api.runs.submissions().getLast().replayed());
    }

    @Test
    void aReplayAnswersEvenAtTheConcurrencyCap() throws Exception {
        var id = api.submit("{\"input\":\"hi\"}", "Idempotency-Key", "key-1").responseBody().get("run_id").asText();
        api.runs.rejectWith(new RunRejectedException(RunRejectedException.Reason.AT_CAPACITY, "Too many concurrent runs (max 10)"));
        assertEquals(id, api.submit("{\"input\":\"hi\"}", "Idempotency-Key", "key-1").responseBody().get("run_id").asText());
        var fresh = api.submit("{\"input\":\"hi\"}", "Idempotency-Key", "key-2");
        assertError(fresh, 429, "rate_limit_exceeded", "Too many concurrent runs (max 10)");
        assertEquals(Optional.of("1"), fresh.responseHeader("Retry-After"));
    }

    @Test
    void theSameKeyWithAnotherPayloadIsAConflictNotToBeRetried() throws Exception {
        api.submit("{\"input\":\"hi\"}", "Idempotency-Key", "key-1");
        var ex = api.submit("{\"input\":\"something else\"}", "Idempotency-Key", "key-1");
        assertError(ex, 409, "idempotency_key_conflict", RunRejectedException.IDEMPOTENCY_CONFLICT_MESSAGE);
        assertEquals(Optional.of("false"), ex.responseHeader("x-should-retry"));
        var otherScope = api.submit("{\"input\":\"hi\"}", "Idempotency-Key", "key-1", "X-Hermes-Session-Key", "other");
        assertError(otherScope, 409, "idempotency_key_conflict", null);
    }

    @Test
    void drainingAndMissingModelAreTheHostsAnswers() throws Exception {
        api.runs.rejectWith(new RunRejectedException(RunRejectedException.Reason.DRAINING, "draining"));
        var draining = api.submit("{\"input\":\"hi\"}");
        assertError(draining, 503, "gateway_draining", RunRejectedException.DRAINING_MESSAGE);
        assertEquals(Optional.of("1000"), draining.responseHeader("retry-after-ms"));
        api.runs.rejectWith(new RunRejectedException(RunRejectedException.Reason.MODEL_NOT_CONFIGURED, "No model provider is configured."));
        var noModel = api.submit("{\"input\":\"hi\"}");
        assertError(noModel, 503, "model_not_configured", "No model provider is configured.");
        assertEquals(Optional.of("false"), noModel.responseHeader("x-should-retry"));
    }

    @Test
    void aBadBodyIsA400EvenWhenAdmissionWouldRefuse() throws Exception {
        api.runs.rejectWith(new RunRejectedException(RunRejectedException.Reason.AT_CAPACITY, "full"));
        assertError(api.submit("{}"), 400, "missing_input", null);
        assertTrue(api.runs.submissions().isEmpty());
    }
}
