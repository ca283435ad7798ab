package dev.caduceus.plugin.chat;

import dev.caduceus.support.clienttools.ToolTranscript;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.support.ids.RandomIds;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The JSON shapes, non-streaming and streaming, for one completion id: the {@code chat.completion}
 * object and every {@code chat.completion.chunk}. Keys are written in OpenAI's order.
 * Immutable; thread-safe.
 */
record ChatCompletions(String id, long created, String model, boolean includeUsage) {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    /** {@code chatcmpl-} + 29 lowercase hex. */
    static String newId() {
        return RandomIds.hex("chatcmpl-", 29);
    }

    /**
     * The non-streaming answer ({@code chat.completion}), written straight to bytes: a tree of it, then the tree's
     * serialization, were a tenth of a chat turn's garbage (bench/README.md, issue 48). {@code json} should keep its
     * buffers in a pool shared by threads (each turn runs on a virtual thread of its own).
     */
    byte[] completionBytes(TurnOutcome outcome, JsonFactory json) {
        var out = new ByteArrayOutputStream(512);
        try (var g = json.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("id", id);
            g.writeStringField("object", "chat.completion");
            g.writeNumberField("created", created);
            g.writeStringField("model", model);
            g.writeArrayFieldStart("choices");
            g.writeStartObject();
            g.writeNumberField("index", 0);
            g.writeObjectFieldStart("message");
            g.writeStringField("role", "assistant");
            if (outcome.toolCalls().isEmpty()) {
                g.writeStringField("content", outcome.output() == null ? "" : outcome.output());
            } else {
                if (outcome.output() == null || outcome.output().isEmpty()) g.writeNullField("content");
                else g.writeStringField("content", outcome.output());
                g.writeFieldName("tool_calls");
                g.writeRawValue(ToolTranscript.toolCallsJson(outcome.toolCalls()).toString());
            }
            g.writeNullField("refusal");
            g.writeEndObject();
            g.writeNullField("logprobs");
            g.writeStringField("finish_reason", outcome.finishReason());
            g.writeEndObject();
            g.writeEndArray();
            var usage = outcome.usage();
            g.writeObjectFieldStart("usage");
            g.writeNumberField("prompt_tokens", usage.inputTokens());
            g.writeNumberField("completion_tokens", usage.outputTokens());
            g.writeNumberField("total_tokens", usage.totalTokens());
            g.writeEndObject();
            if (!outcome.stopReason().completed()) {
                g.writeFieldName("hermes");
                g.writeRawValue(outcome.hermes(true).toString());
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the answer", e);
        }
        return out.toByteArray();
    }

    /** The 502 body: the error envelope with the extra {@code hermes} key ({@code completed}, {@code partial}, {@code failed}). */
    static ObjectNode hardFailure(TurnOutcome outcome) {
        var body = JSON.objectNode();
        body.putObject("error").put("message", outcome.errorText()).put("type", "server_error").putNull("param")
                .put("code", "agent_incomplete").set("hermes", outcome.hermes(false));
        return body;
    }

    ObjectNode roleChunk() {
        var chunk = chunk();
        choice(chunk).putObject("delta").put("role", "assistant");
        return finishNull(chunk);
    }

    ObjectNode contentChunk(String text) {
        var chunk = chunk();
        choice(chunk).putObject("delta").put("content", text);
        return finishNull(chunk);
    }

    /**
     * The chunks of the client's tool calls, as OpenAI streams them: per call, one chunk with its index, id, type,
     * name and empty arguments, then one with its arguments.
     */
    java.util.List<ObjectNode> toolCallChunks(java.util.List<dev.caduceus.spi.message.Message.ToolCallRef> calls) {
        var chunks = new java.util.ArrayList<ObjectNode>();
        for (int i = 0; i < calls.size(); i++) {
            var call = calls.get(i);
            var first = chunk();
            var entry = choice(first).putObject("delta").putArray("tool_calls").addObject().put("index", i)
                    .put("id", call.id()).put("type", "function");
            entry.putObject("function").put("name", call.name()).put("arguments", "");
            chunks.add(finishNull(first));
            var arguments = chunk();
            choice(arguments).putObject("delta").putArray("tool_calls").addObject().put("index", i)
                    .putObject("function").put("arguments", ToolTranscript.argumentsText(call.arguments()));
            chunks.add(finishNull(arguments));
        }
        return chunks;
    }

    /** A chunk with {@code delta.reasoning_content}: tool progress in {@code reasoning} mode. */
    ObjectNode reasoningChunk(String text) {
        var chunk = chunk();
        choice(chunk).putObject("delta").put("reasoning_content", text);
        return finishNull(chunk);
    }

    /** The finish chunk: usage always, {@code hermes} unless {@code stop} or {@code tool_calls}, {@code error} only for {@code error}. */
    ObjectNode finishChunk(TurnOutcome outcome) {
        var chunk = chunk();
        var finish = outcome.finishReason();
        var choice = choice(chunk);
        choice.putObject("delta");
        choice.put("finish_reason", finish);
        chunk.set("usage", usage(outcome.usage()));
        if (!finish.equals("stop") && !finish.equals("tool_calls")) chunk.set("hermes", outcome.hermes(true));
        if (finish.equals("error"))
            chunk.putObject("error").put("message", outcome.errorText()).put("type", "agent_error");
        return chunk;
    }

    /** The finish chunk when the stream broke without a terminal event: no usage. */
    ObjectNode crashChunk(String message) {
        var chunk = chunk();
        var choice = choice(chunk);
        choice.putObject("delta");
        choice.put("finish_reason", "error");
        chunk.remove("usage");
        chunk.putObject("error").put("message", message).put("type", "agent_error");
        return chunk;
    }

    /** The extra {@code include_usage} chunk with no choices. */
    ObjectNode usageChunk(Usage usage) {
        var chunk = head("chat.completion.chunk");
        chunk.putArray("choices");
        chunk.set("usage", usage(usage));
        return chunk;
    }

    static ObjectNode usage(Usage usage) {
        return JSON.objectNode().put("prompt_tokens", usage.inputTokens())
                .put("completion_tokens", usage.outputTokens()).put("total_tokens", usage.totalTokens());
    }

    private ObjectNode head(String object) {
        return JSON.objectNode().put("id", id).put("object", object).put("created", created).put("model", model);
    }

    private ObjectNode chunk() {
        var chunk = head("chat.completion.chunk");
        chunk.putArray("choices").addObject().put("index", 0);
        if (includeUsage) chunk.putNull("usage");
        return chunk;
    }

    private static ObjectNode choice(ObjectNode chunk) {
        return (ObjectNode) chunk.get("choices").get(0);
    }

    private static ObjectNode finishNull(ObjectNode chunk) {
        choice(chunk).putNull("finish_reason");
        return chunk;
    }
}
