package dev.caduceus.spi.message;

/**
 * Token counts of one agent turn (all model calls of the turn summed). Immutable.
 *
 * @param reasoningTokens of {@code outputTokens}, those the model spent reasoning (OpenAI's
 *                        {@code completion_tokens_details.reasoning_tokens}); 0 when not reported
 * @param cachedTokens    of {@code inputTokens}, those the upstream read from its prompt cache (OpenAI's
 *                        {@code prompt_tokens_details.cached_tokens}), priced lower; 0 when not reported
 */
public record Usage(long inputTokens, long outputTokens, long totalTokens, long reasoningTokens, long cachedTokens) {
    public static final Usage ZERO = new Usage(0, 0, 0);

    public Usage {
        if (inputTokens < 0 || outputTokens < 0 || totalTokens < 0 || reasoningTokens < 0 || cachedTokens < 0)
            throw new IllegalArgumentException("token counts must be >= 0");
    }

    /** Without a cached count (the constructor before there was one; it stays for binary compatibility). */
    public Usage(long inputTokens, long outputTokens, long totalTokens, long reasoningTokens) {
        this(inputTokens, outputTokens, totalTokens, reasoningTokens, 0);
    }

    /** Without a reasoning count (the constructor before there was one; it stays for binary compatibility). */
    public Usage(long inputTokens, long outputTokens, long totalTokens) {
        this(inputTokens, outputTokens, totalTokens, 0);
    }

    /** The sum of this and {@code other}. */
    public Usage plus(Usage other) {
        return new Usage(inputTokens + other.inputTokens, outputTokens + other.outputTokens,
                totalTokens + other.totalTokens, reasoningTokens + other.reasoningTokens, cachedTokens + other.cachedTokens);
    }
}
