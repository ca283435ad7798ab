package dev.caduceus.platform.runtime.routing;

import dev.caduceus.spi.message.Usage;
import java.math.BigDecimal;

/**
 * What a deployment's tokens cost, in picodollars (10⁻¹² USD) per token, from its {@code price} in USD per million
 * tokens: {@code input}, {@code cached_input} (default: {@code input}), {@code output} and {@code reasoning} (default:
 * {@code output}). A call's cost: its uncached prompt tokens at {@code input}, its cached ones at {@code cached_input},
 * its completion tokens other than reasoning at {@code output} and its reasoning tokens at {@code reasoning}: whole
 * picodollars, so that sums are exact. Immutable.
 */
public record Price(long input, long cachedInput, long output, long reasoning) {
    /** No price: calls cost nothing (their tokens are still counted). */
    public static final Price FREE = new Price(0, 0, 0, 0);

    public Price {
        if (input < 0 || cachedInput < 0 || output < 0 || reasoning < 0)
            throw new IllegalArgumentException("a price must be >= 0");
    }

    /** From USD per million tokens; more than 6 decimals cannot be counted in whole picodollars per token. */
    public static Price perMillion(BigDecimal input, BigDecimal cachedInput, BigDecimal output, BigDecimal reasoning) {
        return new Price(pico(input), pico(cachedInput == null ? input : cachedInput), pico(output),
                pico(reasoning == null ? output : reasoning));
    }

    /** USD per million tokens → picodollars per token (×10⁶). */
    static long pico(BigDecimal usdPerMillion) {
        if (usdPerMillion.signum() < 0) throw new IllegalArgumentException("must be >= 0");
        try {
            return usdPerMillion.movePointRight(6).longValueExact();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("has more than 6 decimals or is too large: " + usdPerMillion.toPlainString());
        }
    }

    /** The cost of {@code usage} in picodollars. */
    public long cost(Usage usage) {
        if (this == FREE || usage == null) return 0;
        long cached = Math.min(usage.cachedTokens(), usage.inputTokens());
        long reasoningTokens = Math.min(usage.reasoningTokens(), usage.outputTokens());
        return Math.addExact(Math.addExact(Math.multiplyExact(usage.inputTokens() - cached, input),
                        Math.multiplyExact(cached, cachedInput)),
                Math.addExact(Math.multiplyExact(usage.outputTokens() - reasoningTokens, output),
                        Math.multiplyExact(reasoningTokens, reasoning)));
    }
}
