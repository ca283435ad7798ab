package dev.caduceus.spi.agent;

import java.util.Locale;

/**
 * Why an agent turn ended. Each reason fixes the {@code completed} / {@code partial} /
 * {@code failed} flags that endpoints report. The wire name is the lower-case constant name.
 */
public enum StopReason {
    /** A final answer. */
    STOP(true, false, false),
    /**
     * The model called the caller's own functions ({@link RunRequest.ClientTools}); the turn waits for their results, which
     * the caller sends in its next request. The wire name is {@code tool_calls}, OpenAI's {@code finish_reason}.
     */
    TOOL_CALLS(true, false, false),
    /** The iteration cap was reached; the answer comes from one last call without tools. */
    ITERATION_LIMIT(false, true, false),
    /** The model's output was cut at {@code max_tokens}. */
    OUTPUT_LENGTH(false, true, false),
    /** The upstream refused the context as too long. */
    CONTEXT_LENGTH(false, true, false),
    /** The upstream failed (after retries) or the stream broke. */
    UPSTREAM_ERROR(false, false, true),
    /** The model returned nothing, twice. */
    EMPTY_RESPONSE(false, false, true),
    /** Stopped, client gone, or shutdown. */
    INTERRUPTED(false, true, false),
    /** A bug or an unexpected exception in the runtime. */
    INTERNAL_ERROR(false, false, true);

    private final boolean completed;
    private final boolean partial;
    private final boolean failed;

    StopReason(boolean completed, boolean partial, boolean failed) {
        this.completed = completed;
        this.partial = partial;
        this.failed = failed;
    }

    public boolean completed() { return completed; }

    public boolean partial() { return partial; }

    public boolean failed() { return failed; }

    /** Whether an OpenAI {@code finish_reason} for this turn is {@code length}. */
    public boolean truncated() {
        return this == ITERATION_LIMIT || this == OUTPUT_LENGTH || this == CONTEXT_LENGTH;
    }

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
