package dev.caduceus.spi.message;

/**
 * Token counts of one agent turn (all model calls of the turn summed). Immutable.
 */
public record Usage(long inputTokens, long outputTokens, long totalTokens) {
    public static final Usage ZERO = new Usage(0, 0, 0);

    public Usage {
        if (inputTokens < 0 || outputTokens < 0 || totalTokens < 0)
            throw new IllegalArgumentException("token counts must be >= 0");
    }

    /** The sum of this and {@code other}. */
    public Usage plus(Usage other) {
        return new Usage(inputTokens + other.inputTokens, outputTokens + other.outputTokens,
                totalTokens + other.totalTokens);
    }
}
