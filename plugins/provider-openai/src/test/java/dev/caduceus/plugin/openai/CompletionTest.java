package dev.caduceus.plugin.openai;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link Completion}: what a non-streamed answer's events are made of, read without a tree of the answer. */
class CompletionTest {
    /** As the provider's: trailing tokens fail. */
    private static final ObjectMapper JSON = com.fasterxml.jackson.databind.json.JsonMapper.builder()
            .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

    private static Completion read(String json) throws IOException {
        return Completion.read(Completion.trees(JSON), json.getBytes(UTF_8));
    }

    @Test
    void readsTheFirstChoicesTextFinishReasonAndUsageAndSkipsTheRest() throws IOException {
        var c = read("""
                {"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m",
                 "choices":[{"index":0,"logprobs":{"content":[{"token":"a","top_logprobs":[]}]},
                             "message":{"role":"assistant","content":"ok","refusal":null,"annotations":[]},
                             "finish_reason":"length"},
                            {"index":1,"message":{"role":"assistant","content":"other"},"finish_reason":"stop"}],
                 "usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4},
                 "system_fingerprint":"fp"}""");
        assertTrue(c.choice());
        assertEquals(List.of("ok"), c.texts());
        assertEquals("length", c.finishReason());
        assertEquals(4, c.usage().path("total_tokens").asInt());
        assertNull(c.reasoning());
        assertTrue(c.toolCalls().isEmpty());
    }

    @Test
    void takesEachContentPartsTextAndTheToolCallsInOrder() throws IOException {
        var c = read("""
                {"choices":[{"message":{"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{}"}},
                                                      {"id":"b","function":{"name":"g","arguments":"{}"}}],
                                        "content":[{"type":"text","text":"one "},{"type":"image"},7,
                                                   {"type":"text","text":"two"}]}}]}""");
        assertEquals(List.of("one ", "two"), c.texts());
        assertEquals(List.of("a", "b"), c.toolCalls().stream().map(n -> n.path("id").asText()).toList());
        assertEquals("stop", c.finishReason(), "a missing finish reason reads stop");
    }

    @Test
    void prefersReasoningContentToReasoningWhateverTheirOrder() throws IOException {
        assertEquals("rc", read("{\"choices\":[{\"message\":{\"reasoning\":\"r\",\"reasoning_content\":\"rc\"}}]}").reasoning());
        assertEquals("r", read("{\"choices\":[{\"message\":{\"reasoning_content\":5,\"reasoning\":\"r\"}}]}").reasoning());
    }

    @Test
    void aNullFinishReasonReadsStopAndAScalarOneItsText() throws IOException {
        assertEquals("stop", read("{\"choices\":[{\"finish_reason\":null}]}").finishReason());
        assertEquals("12", read("{\"choices\":[{\"finish_reason\":12}]}").finishReason());
    }

    @Test
    void aRepeatedFieldCountsLastAsInATree() throws IOException {
        var c = read("""
                {"choices":[{"message":{"content":"first"}}],"usage":{"total_tokens":1},
                 "choices":[{"message":{"content":"second"},"finish_reason":"tool_calls"}],"usage":7}""");
        assertEquals(List.of("second"), c.texts());
        assertEquals("tool_calls", c.finishReason());
        assertNull(c.usage(), "a usage that is not an object counts as none");
    }

    @Test
    void anAnswerWithoutAnObjectAsItsFirstChoiceHasNoChoice() throws IOException {
        for (var json : List.of("{\"id\":\"x\"}", "{\"choices\":[]}", "{\"choices\":[1,{\"message\":{}}]}",
                "{\"choices\":{\"message\":{}}}", "[]", "\"text\"", ""))
            assertFalse(read(json).choice(), json);
    }

    @Test
    void malformedJsonFails() {
        for (var json : List.of("{\"choices\":[{\"message\":{\"content\":\"ok\"}}", "{\"choices\":[}]}", "{choices:1}",
                "{\"choices\":[]} {}", "{} x"))
            assertThrows(JsonProcessingException.class, () -> read(json), json);
    }
}
