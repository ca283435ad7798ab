package dev.caduceus.plugin.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.model.FinishReason;
import dev.caduceus.support.reasoning.InlineReasoning;
import dev.caduceus.spi.model.ModelEvent;
import dev.caduceus.spi.model.ModelException;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Turns one call's upstream JSON (stream chunks, or the one non-streamed response) into
 * {@link ModelEvent}s in order: reasoning and text deltas as they come, each whole tool call when the
 * choice finishes, then one {@link ModelEvent.UsageReport} (the last usage seen) and exactly one
 * {@link ModelEvent.Finish}. A {@code stop} (or missing) finish reason with tool calls reads
 * {@code TOOL_CALLS}, since some servers send {@code stop}. A reasoning block leading the content
 * ({@code <think>}, {@code <thinking>}, … in any case) goes to the reasoning through the SPI's
 * {@link InlineReasoning.Streaming}, the same extraction the batch runner uses. One instance per call; not thread-safe.
 */
final class CallEvents {
    private final Consumer<ModelEvent> sink;
    private final UpstreamErrors errors;
    private final ToolCallBuffer toolCalls;
    private final InlineReasoning.Streaming think;
    private boolean emitted;
    private boolean calledTools;
    private String finishReason;
    private Usage usage;

    CallEvents(ObjectMapper json, UpstreamErrors errors, Consumer<ModelEvent> sink) {
        this.sink = sink;
        this.errors = errors;
        this.toolCalls = new ToolCallBuffer(json);
        this.think = new InlineReasoning.Streaming(this::text, this::reasoning);
    }

    /** Whether any text, reasoning or tool call reached the sink (then a failure is not retryable). */
    boolean emitted() {
        return emitted;
    }

    /** Whether a choice carried a finish reason. */
    boolean finished() {
        return finishReason != null;
    }

    /** One {@code chat.completion.chunk}. */
    void chunk(JsonNode chunk) throws ModelException {
        var choices = chunk.path("choices");
        if (chunk.path("error").isObject() && choices.isEmpty()) throw errors.inStream(chunk, emitted);
        var choice = choices.path(0);
        var delta = choice.path("delta");
        reasoningField(delta);
        if (delta.path("content").isTextual()) think.accept(delta.path("content").asText());
        int position = 0;
        for (var call : delta.path("tool_calls")) toolCalls.add(call, position++);
        usage(chunk.path("usage"));
        if (choice.path("finish_reason").isTextual()) endChoice(choice.path("finish_reason").asText());
    }

    /** The one non-streamed {@code chat.completion}; ends with {@link #finish()}. */
    void completion(Completion response, byte[] raw) throws ModelException {
        if (!response.choice())
            throw errors.badAnswer("Upstream response has no choices", new String(raw, StandardCharsets.UTF_8), false);
        if (response.reasoning() != null) reasoning(response.reasoning());
        for (var text : response.texts()) think.accept(text);
        int position = 0;
        for (var call : response.toolCalls()) toolCalls.add(call, position++);
        if (response.usage() != null) usage(response.usage());
        endChoice(response.finishReason());
        finish();
    }

    /** Flushes what is held, then emits usage and the one {@link ModelEvent.Finish}. */
    void finish() {
        endChoice(finishReason == null ? "stop" : finishReason);
        if (usage != null) sink.accept(new ModelEvent.UsageReport(usage));
        sink.accept(new ModelEvent.Finish(reason()));
    }

    private void endChoice(String reason) {
        finishReason = reason;
        think.finish();
        for (var call : toolCalls.drain()) {
            calledTools = true;
            emit(call);
        }
    }

    private FinishReason reason() {
        return switch (finishReason) {
            case "length" -> FinishReason.LENGTH;
            case "tool_calls", "function_call" -> FinishReason.TOOL_CALLS;
            case "content_filter" -> FinishReason.CONTENT_FILTER;
            default -> calledTools ? FinishReason.TOOL_CALLS : FinishReason.STOP;
        };
    }

    private void reasoningField(JsonNode node) {
        if (node.path("reasoning_content").isTextual()) reasoning(node.path("reasoning_content").asText());
        else if (node.path("reasoning").isTextual()) reasoning(node.path("reasoning").asText());
    }

    private void usage(JsonNode node) {
        if (!node.isObject()) return;
        long in = Math.max(0, node.path("prompt_tokens").asLong(0));
        long out = Math.max(0, node.path("completion_tokens").asLong(0));
        long reasoning = Math.max(0, node.path("completion_tokens_details").path("reasoning_tokens").asLong(0));
        long cached = Math.min(in, Math.max(0, node.path("prompt_tokens_details").path("cached_tokens").asLong(0)));
        usage = new Usage(in, out, Math.max(0, node.path("total_tokens").asLong(in + out)), reasoning, cached);
    }

    private void text(String text) {
        if (!text.isEmpty()) emit(new ModelEvent.TextDelta(text));
    }

    private void reasoning(String text) {
        if (!text.isEmpty()) emit(new ModelEvent.ReasoningDelta(text));
    }

    private void emit(ModelEvent event) {
        emitted = true;
        sink.accept(event);
    }
}
