package dev.caduceus.plugin.responses;

import dev.caduceus.spi.PlatformContext;
import java.util.Locale;
import java.util.Optional;

/**
 * Whether a Responses stream shows tool steps as reasoning summaries: the one choice of
 * {@code chat.tool_progress} that applies here (tool calls are already output items, so
 * {@code comments}, {@code events} and {@code none} change nothing), with the same
 * {@code X-Hermes-Tool-Progress} override as chat. The legacy {@code chat.tool_progress_events}
 * never chose {@code reasoning}; with it set to {@code off} (and no {@code chat.tool_progress}) the
 * header is ignored, as on chat. Immutable.
 *
 * @param byDefault       {@code chat.tool_progress} is {@code reasoning}
 * @param headerOverrides the header may choose
 */
record ProgressReasoning(boolean byDefault, boolean headerOverrides) {
    static final String HEADER = "X-Hermes-Tool-Progress";

    static ProgressReasoning from(PlatformContext ctx) {
        var configured = ctx.section("chat").string("tool_progress").map(ProgressReasoning::normalize);
        if (configured.isPresent()) return new ProgressReasoning(configured.get().equals("reasoning"), true);
        var legacy = normalize(ctx.section("chat").string("tool_progress_events", "opt_in"));
        return new ProgressReasoning(false, !legacy.equals("off"));
    }

    /** For one request: a known word of the header decides ({@code reasoning} or not), else the setting. */
    boolean resolve(Optional<String> header) {
        if (!headerOverrides) return byDefault;
        return header.map(ProgressReasoning::normalize).filter(ProgressReasoning::known)
                .map(w -> w.equals("reasoning")).orElse(byDefault);
    }

    private static boolean known(String word) {
        return switch (word) {
            case "comments", "comment", "events", "event", "reasoning", "none",
                 "true", "1", "yes", "on", "false", "0", "no", "off" -> true;
            default -> false;
        };
    }

    private static String normalize(String value) {
        return value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
    }
}
