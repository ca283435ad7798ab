package dev.caduceus.plugin.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.support.clienttools.ToolTranscript;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The non-streamed answer written without a tree: byte for byte what its tree (OpenAI's key order) serializes to. */
class ChatCompletionsBytesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final ChatCompletions shapes = new ChatCompletions("chatcmpl-x", 1_700_000_000L, "hermes-agent", false);

    /** The answer as a tree, the way it was built before it was written directly: the reference. */
    private static ObjectNode tree(ChatCompletions shapes, TurnOutcome outcome) {
        var body = JsonNodeFactory.instance.objectNode().put("id", shapes.id()).put("object", "chat.completion")
                .put("created", shapes.created()).put("model", shapes.model());
        var choice = body.putArray("choices").addObject().put("index", 0);
        var message = choice.putObject("message").put("role", "assistant");
        if (outcome.toolCalls().isEmpty()) {
            message.put("content", outcome.output() == null ? "" : outcome.output());
        } else {
            if (outcome.output() == null || outcome.output().isEmpty()) message.putNull("content");
            else message.put("content", outcome.output());
            message.set("tool_calls", ToolTranscript.toolCallsJson(outcome.toolCalls()));
        }
        message.putNull("refusal");
        choice.putNull("logprobs");
        choice.put("finish_reason", outcome.finishReason());
        body.set("usage", ChatCompletions.usage(outcome.usage()));
        if (!outcome.stopReason().completed()) body.set("hermes", outcome.hermes(true));
        return body;
    }

    private void sameAsTheTree(TurnOutcome outcome) throws Exception {
        var written = new String(shapes.completionBytes(outcome, ChatHandler.answerJson()), StandardCharsets.UTF_8);
        assertEquals(JSON.writeValueAsString(tree(shapes, outcome)), written);
    }

    @Test
    void aTextAnswer() throws Exception {
        sameAsTheTree(new TurnOutcome("ok \"quoted\" ✓ \u2028 </script>\n", StopReason.STOP, null, new Usage(3, 1, 4)));
        sameAsTheTree(new TurnOutcome(null, StopReason.STOP, null, null));
    }

    @Test
    void theClientsToolCallsWithAndWithoutText() throws Exception {
        var args = JsonNodeFactory.instance.objectNode().put("path", "a b.txt").put("n", 2);
        var calls = List.of(new Message.ToolCallRef("call_1", "read", args),
                new Message.ToolCallRef("call_2", "list", JsonNodeFactory.instance.objectNode()));
        sameAsTheTree(new TurnOutcome(null, StopReason.TOOL_CALLS, null, new Usage(5, 2, 7), calls));
        sameAsTheTree(new TurnOutcome("", StopReason.TOOL_CALLS, null, new Usage(5, 2, 7), calls));
        sameAsTheTree(new TurnOutcome("Reading it.", StopReason.TOOL_CALLS, null, new Usage(5, 2, 7), calls));
    }

    @Test
    void anIncompleteTurnCarriesHermes() throws Exception {
        sameAsTheTree(new TurnOutcome("partial", StopReason.ITERATION_LIMIT, "iteration limit reached", new Usage(9, 9, 18)));
        sameAsTheTree(new TurnOutcome("cut", StopReason.OUTPUT_LENGTH, null, Usage.ZERO));
    }
}
