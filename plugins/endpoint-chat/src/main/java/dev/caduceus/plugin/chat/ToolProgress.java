package dev.caduceus.plugin.chat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.http.ClientGoneException;
import dev.caduceus.spi.http.EventStream;
import java.util.HashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Tool-progress notices on a chat stream (http-api §7.4): one {@code running} notice per announced
 * call (it has an id and its name does not start with {@code _}) and one {@code completed} notice for
 * announced ids only, delivered as a named {@code hermes.tool.progress} event, a comment line, or not
 * at all. Confined to the stream's thread.
 */
final class ToolProgress {
    static final String EVENT = "hermes.tool.progress";
    static final String OPT_IN_HEADER = "X-Hermes-Tool-Progress";
    private static final String DEFAULT_EMOJI = "⚡";

    /** The operator's setting: {@code opt_in} (default), {@code always} or {@code off}. */
    enum Mode {
        OPT_IN, ALWAYS, OFF;

        static Mode parse(String value) {
            return switch (value.trim().toLowerCase(Locale.ROOT).replace('-', '_')) {
                case "always" -> ALWAYS;
                case "off", "false", "none" -> OFF;
                default -> OPT_IN;
            };
        }
    }

    enum Delivery { NAMED, COMMENT, NONE }

    private final Delivery delivery;
    private final Set<String> announced = new HashSet<>();

    ToolProgress(Delivery delivery) {
        this.delivery = delivery;
    }

    /** The delivery for {@code mode} and the request's {@code X-Hermes-Tool-Progress} value. */
    static Delivery delivery(Mode mode, Optional<String> header) {
        var optIn = header.map(v -> v.trim().toLowerCase(Locale.ROOT)).map(v -> switch (v) {
            case "1", "true", "yes", "on" -> Boolean.TRUE;
            case "0", "false", "no", "off" -> Boolean.FALSE;
            default -> null;
        });
        return switch (mode) {
            case OFF -> Delivery.NONE;
            case ALWAYS -> optIn.filter(b -> !b).isPresent() ? Delivery.COMMENT : Delivery.NAMED;
            case OPT_IN -> optIn.filter(b -> b).isPresent() ? Delivery.NAMED : Delivery.COMMENT;
        };
    }

    void started(RunEvent.ToolCallStarted s, EventStream out) throws ClientGoneException {
        if (delivery == Delivery.NONE || s.callId().isBlank() || s.tool().startsWith("_")) return;
        announced.add(s.callId());
        var preview = s.argumentsPreview();
        var label = preview == null || preview.isBlank() ? s.tool() : s.tool() + ": " + preview;
        var emoji = s.emoji() == null || s.emoji().isBlank() ? DEFAULT_EMOJI : s.emoji();
        send(JsonNodeFactory.instance.objectNode().put("tool", s.tool()).put("emoji", emoji).put("label", label)
                .put("toolCallId", s.callId()).put("status", "running"), out);
    }

    void finished(RunEvent.ToolCallFinished f, EventStream out) throws ClientGoneException {
        if (!announced.remove(f.callId())) return;
        send(JsonNodeFactory.instance.objectNode().put("tool", f.tool()).put("toolCallId", f.callId())
                .put("status", "completed"), out);
    }

    private void send(ObjectNode notice, EventStream out) throws ClientGoneException {
        switch (delivery) {
            case NAMED -> out.event(null, EVENT, notice);
            case COMMENT -> out.comment(EVENT + " " + notice);
            case NONE -> { }
        }
    }
}
