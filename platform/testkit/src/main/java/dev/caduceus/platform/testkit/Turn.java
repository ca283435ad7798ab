package dev.caduceus.platform.testkit;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One scripted answer of {@link ScriptedUpstream}: what the fake model says for one request. Start
 * from a factory ({@link #text}, {@link #reasoning}, {@link #toolCalls}, {@link #error},
 * {@link #malformed}) and refine with the {@code with…}/fault methods; every method returns a new
 * value. Text and reasoning are split into stream chunks by words ({@link #textChunks} gives exact
 * chunks); tool-call arguments are split into pieces of at most {@value #ARGUMENT_PIECE} chars.
 *
 * @param text             content chunks, in order (may be empty)
 * @param reasoning        {@code reasoning_content} chunks, sent before the content
 * @param toolCalls        tool calls, sent after the content
 * @param finishReason     the finish reason; {@code null} means {@code tool_calls} when there are calls,
 *                         else {@code stop}
 * @param usage            token counts; {@code null} means zeros
 * @param status           HTTP status; 200 unless {@link #error}
 * @param errorMessage     the OpenAI error message when {@code status >= 400}
 * @param retryAfterSeconds the {@code Retry-After} header, or {@code null}
 * @param cutAfterChunks   abort the connection after this many SSE events (streaming only); -1 never
 * @param malformedBody    answer 200 with a body (or one chunk) that is not JSON
 * @param delayMillis      wait before the first byte
 * @param chunkDelayMillis wait before each SSE event after the first
 */
public record Turn(List<String> text, List<String> reasoning, List<ToolCall> toolCalls, String finishReason,
                   Usage usage, int status, String errorMessage, Integer retryAfterSeconds, int cutAfterChunks,
                   boolean malformedBody, long delayMillis, long chunkDelayMillis) {
    static final int ARGUMENT_PIECE = 5;

    public Turn {
        text = List.copyOf(text);
        reasoning = List.copyOf(reasoning);
        toolCalls = List.copyOf(toolCalls);
        if (status < 200 || status > 599) throw new IllegalArgumentException("status must be 2xx-5xx: " + status);
        if (delayMillis < 0 || chunkDelayMillis < 0) throw new IllegalArgumentException("delays must be >= 0");
    }

    /** Content {@code text}, streamed word by word. */
    public static Turn text(String text) {
        return empty().withText(text);
    }

    /**
     * An answer that quotes the content of the last {@code tool} message of {@code requestBody}:
     * {@code "Tool result: <content>"} (end-to-end tests check that a tool's result reached the model
     * and comes back in the final answer).
     */
    public static Turn quotingLastToolResult(com.fasterxml.jackson.databind.JsonNode requestBody) {
        String last = "(no tool result)";
        for (var message : requestBody.path("messages"))
            if ("tool".equals(message.path("role").asText())) last = message.path("content").asText();
        return textChunks("Tool result: ", last);
    }

    /** Content streamed as exactly these chunks (for tests of chunk boundaries). */
    public static Turn textChunks(String... chunks) {
        return new Turn(List.of(chunks), List.of(), List.of(), null, null, 200, null, null, -1, false, 0, 0);
    }

    /** Reasoning ({@code reasoning_content}) only; add the answer with {@link #withText}. */
    public static Turn reasoning(String reasoning) {
        return empty().withReasoning(reasoning);
    }

    /** An assistant message that calls tools (finish reason {@code tool_calls}). */
    public static Turn toolCalls(ToolCall... calls) {
        return empty().withToolCalls(calls);
    }

    /** An OpenAI error answer: {@code status} with {@code {"error":{"message":…}}}. */
    public static Turn error(int status, String message) {
        requireNonNull(message, "message");
        if (status < 400) throw new IllegalArgumentException("an error status is >= 400: " + status);
        return new Turn(List.of(), List.of(), List.of(), null, null, status, message, null, -1, false, 0, 0);
    }

    /** A 200 whose body (or first stream chunk) is not JSON. */
    public static Turn malformed() {
        return new Turn(List.of(), List.of(), List.of(), null, null, 200, null, null, -1, true, 0, 0);
    }

    private static Turn empty() {
        return new Turn(List.of(), List.of(), List.of(), null, null, 200, null, null, -1, false, 0, 0);
    }

    public Turn withText(String content) {
        return new Turn(words(content), reasoning, toolCalls, finishReason, usage, status, errorMessage,
                retryAfterSeconds, cutAfterChunks, malformedBody, delayMillis, chunkDelayMillis);
    }

    public Turn withReasoning(String thinking) {
        return new Turn(text, words(thinking), toolCalls, finishReason, usage, status, errorMessage,
                retryAfterSeconds, cutAfterChunks, malformedBody, delayMillis, chunkDelayMillis);
    }

    public Turn withToolCalls(ToolCall... calls) {
        return new Turn(text, reasoning, Arrays.asList(calls), finishReason, usage, status, errorMessage,
                retryAfterSeconds, cutAfterChunks, malformedBody, delayMillis, chunkDelayMillis);
    }

    public Turn finishReason(String reason) {
        return new Turn(text, reasoning, toolCalls, requireNonNull(reason, "reason"), usage, status, errorMessage,
                retryAfterSeconds, cutAfterChunks, malformedBody, delayMillis, chunkDelayMillis);
    }

    public Turn usage(int promptTokens, int completionTokens) {
        return usage(promptTokens, completionTokens, 0);
    }

    /** With {@code reasoningTokens} of the completion tokens spent reasoning. */
    public Turn usage(int promptTokens, int completionTokens, int reasoningTokens) {
        return new Turn(text, reasoning, toolCalls, finishReason, new Usage(promptTokens, completionTokens, reasoningTokens),
                status, errorMessage, retryAfterSeconds, cutAfterChunks, malformedBody, delayMillis, chunkDelayMillis);
    }

    /** With {@code cachedTokens} of the prompt tokens read from the upstream's cache. */
    public Turn usage(int promptTokens, int completionTokens, int reasoningTokens, int cachedTokens) {
        return new Turn(text, reasoning, toolCalls, finishReason,
                new Usage(promptTokens, completionTokens, reasoningTokens, cachedTokens),
                status, errorMessage, retryAfterSeconds, cutAfterChunks, malformedBody, delayMillis, chunkDelayMillis);
    }

    public Turn retryAfterSeconds(int seconds) {
        return new Turn(text, reasoning, toolCalls, finishReason, usage, status, errorMessage, seconds,
                cutAfterChunks, malformedBody, delayMillis, chunkDelayMillis);
    }

    /** Aborts the connection (no terminating chunk, no {@code [DONE]}) after {@code events} SSE events. */
    public Turn cutAfterChunks(int events) {
        return new Turn(text, reasoning, toolCalls, finishReason, usage, status, errorMessage, retryAfterSeconds,
                events, malformedBody, delayMillis, chunkDelayMillis);
    }

    public Turn delayMillis(long millis) {
        return new Turn(text, reasoning, toolCalls, finishReason, usage, status, errorMessage, retryAfterSeconds,
                cutAfterChunks, malformedBody, millis, chunkDelayMillis);
    }

    public Turn chunkDelayMillis(long millis) {
        return new Turn(text, reasoning, toolCalls, finishReason, usage, status, errorMessage, retryAfterSeconds,
                cutAfterChunks, malformedBody, delayMillis, millis);
    }

    /** The whole content ({@code text} joined). */
    public String content() {
        return String.join("", text);
    }

    /** The finish reason actually sent. */
    public String effectiveFinishReason() {
        if (finishReason != null) return finishReason;
        return toolCalls.isEmpty() ? "stop" : "tool_calls";
    }

    /** Splits after each run of spaces, keeping the spaces: {@code "a b  c"} → {@code "a ", "b  ", "c"}. */
    static List<String> words(String s) {
        requireNonNull(s, "text");
        var out = new ArrayList<String>();
        int start = 0;
        for (int i = 1; i <= s.length(); i++) {
            boolean boundary = i == s.length() || (s.charAt(i - 1) == ' ' && s.charAt(i) != ' ');
            if (boundary && i > start) {
                out.add(s.substring(start, i));
                start = i;
            }
        }
        return out;
    }

    /**
     * Token counts reported in {@code usage}; {@code reasoningTokens} (part of the completion tokens)
     * goes out as {@code completion_tokens_details.reasoning_tokens} when it is not 0, {@code cachedTokens} (part of
     * the prompt tokens) as {@code prompt_tokens_details.cached_tokens}.
     */
    public record Usage(int promptTokens, int completionTokens, int reasoningTokens, int cachedTokens) {
        public Usage(int promptTokens, int completionTokens) {
            this(promptTokens, completionTokens, 0, 0);
        }

        public Usage(int promptTokens, int completionTokens, int reasoningTokens) {
            this(promptTokens, completionTokens, reasoningTokens, 0);
        }

        public int totalTokens() { return promptTokens + completionTokens; }
    }

    /** One scripted tool call; {@code arguments} is sent verbatim (it need not be valid JSON). */
    public record ToolCall(String id, String name, String arguments) {
        public ToolCall {
            requireNonNull(name, "name");
            requireNonNull(arguments, "arguments");
        }

        /** {@code id} may be {@code null}: the call is then sent without an id. */
        public static ToolCall of(String id, String name, String arguments) {
            return new ToolCall(id, name, arguments);
        }

        /** The arguments cut into stream fragments. */
        List<String> argumentPieces() {
            var out = new ArrayList<String>();
            for (int i = 0; i < arguments.length(); i += ARGUMENT_PIECE)
                out.add(arguments.substring(i, Math.min(arguments.length(), i + ARGUMENT_PIECE)));
            if (out.isEmpty()) out.add("");
            return out;
        }
    }
}
