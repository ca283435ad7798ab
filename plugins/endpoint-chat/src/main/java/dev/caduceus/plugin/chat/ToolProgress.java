package dev.caduceus.plugin.chat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.http.ClientGoneException;
import dev.caduceus.spi.http.EventStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Tool-progress notices on a chat stream (issue 20): one {@code running} notice per
 * announced call (it has an id and its name does not start with {@code _}) and one {@code completed}
 * notice for announced ids only, delivered in one of the {@link Mode}s. Confined to the stream's
 * thread.
 */
final class ToolProgress {
    static final String EVENT = "hermes.tool.progress";
    static final String OPT_IN_HEADER = "X-Hermes-Tool-Progress";
    private static final String DEFAULT_EMOJI = "⚡";

    /** How a stream shows tool progress: {@code chat.tool_progress} and the header use these words. */
    enum Mode {
        /** {@code : hermes.tool.progress {…}} comment lines, which every client ignores (the default). */
        COMMENTS,
        /** Hermes' named {@code event: hermes.tool.progress} frames (the typed Hermes client reads them). */
        EVENTS,
        /** {@code delta.reasoning_content} text, which front-ends show as the model's thinking. */
        REASONING,
        /** Nothing. */
        NONE;

        /**
         * A word of {@code chat.tool_progress} or of the header: the mode names, {@code true} (and
         * {@code 1}, {@code yes}, {@code on}) for {@code events}, {@code false} (and {@code 0},
         * {@code no}, {@code off}) for {@code none}; anything else is empty.
         */
        static Optional<Mode> word(String value) {
            return Optional.ofNullable(switch (value.trim().toLowerCase(Locale.ROOT)) {
                case "comments", "comment" -> COMMENTS;
                case "events", "event", "true", "1", "yes", "on" -> EVENTS;
                case "reasoning" -> REASONING;
                case "none", "false", "0", "no", "off" -> NONE;
                default -> null;
            });
        }
    }

    /**
     * The operator's choice. Immutable.
     *
     * @param mode            what a stream gets without the header
     * @param headerOverrides whether {@code X-Hermes-Tool-Progress} may choose another mode; false
     *                        only for the legacy {@code chat.tool_progress_events: off}, which refused
     *                        the header before {@code chat.tool_progress} existed
     */
    record Setting(Mode mode, boolean headerOverrides) {
        static final Setting DEFAULT = new Setting(Mode.COMMENTS, true);

        /**
         * {@code chat.tool_progress} when set; otherwise the legacy {@code chat.tool_progress_events}:
         * {@code opt_in} → {@code comments} (the header opts in), {@code always} → {@code events},
         * {@code off} → {@code none} (header ignored, as before).
         */
        static Setting of(Optional<String> toolProgress, String legacyEvents) {
            if (toolProgress.isPresent()) {
                var mode = Mode.word(toolProgress.get()).orElseThrow(() -> new IllegalArgumentException(
                        "chat.tool_progress must be comments, events, reasoning or none: " + toolProgress.get()));
                return new Setting(mode, true);
            }
            return switch (legacyEvents == null ? "" : legacyEvents.trim().toLowerCase(Locale.ROOT).replace('-', '_')) {
                case "always" -> new Setting(Mode.EVENTS, true);
                case "off", "false", "none" -> new Setting(Mode.NONE, false);
                default -> DEFAULT;
            };
        }

        /** The mode of one request with {@code X-Hermes-Tool-Progress} value {@code header}. */
        Mode resolve(Optional<String> header) {
            if (!headerOverrides) return mode;
            return header.flatMap(Mode::word).orElse(mode);
        }
    }

    private final Mode mode;
    private final ChatCompletions shapes;
    /** Announced calls still running, in start order: call id → tool name. */
    private final Map<String, String> running = new LinkedHashMap<>();

    ToolProgress(Mode mode, ChatCompletions shapes) {
        this.mode = mode;
        this.shapes = shapes;
    }

    void started(RunEvent.ToolCallStarted s, EventStream out) throws ClientGoneException {
        if (mode == Mode.NONE || s.callId().isBlank() || s.tool().startsWith("_")) return;
        running.put(s.callId(), s.tool());
        var preview = s.argumentsPreview();
        var label = preview == null || preview.isBlank() ? s.tool() : s.tool() + ": " + preview;
        var emoji = s.emoji() == null || s.emoji().isBlank() ? DEFAULT_EMOJI : s.emoji();
        if (mode == Mode.REASONING) {
            out.event(shapes.reasoningChunk(emoji + " " + label + "\n"));
            return;
        }
        send(JsonNodeFactory.instance.objectNode().put("tool", s.tool()).put("emoji", emoji).put("label", label)
                .put("toolCallId", s.callId()).put("status", "running"), out);
    }

    void finished(RunEvent.ToolCallFinished f, EventStream out) throws ClientGoneException {
        var last = running.isEmpty() ? null : new ArrayList<>(running.keySet()).getLast();
        if (running.remove(f.callId()) == null) return;
        if (mode == Mode.REASONING) {
            // Alone, the end line follows its own start line; with calls in parallel it names its tool.
            var alone = f.callId().equals(last) && running.isEmpty();
            out.event(shapes.reasoningChunk((f.error() ? "✗ " : "✓ ") + (alone ? "" : f.tool() + " ")
                    + String.format(Locale.ROOT, "%.1f s", f.durationMillis() / 1000.0) + "\n\n"));
            return;
        }
        send(JsonNodeFactory.instance.objectNode().put("tool", f.tool()).put("toolCallId", f.callId())
                .put("status", "completed"), out);
    }

    private void send(ObjectNode notice, EventStream out) throws ClientGoneException {
        switch (mode) {
            case EVENTS -> out.event(null, EVENT, notice);
            case COMMENTS -> out.comment(EVENT + " " + notice);
            case REASONING, NONE -> { }
        }
    }
}
