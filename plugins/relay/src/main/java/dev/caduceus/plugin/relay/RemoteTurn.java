package dev.caduceus.plugin.relay;

import dev.caduceus.spi.message.Message;
import dev.caduceus.support.clienttools.ToolTranscript;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.agent.RunContext;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.outbound.OutboundHttp;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * The parsing state of one relayed turn: the remote's server-sent events and comment lines (as the
 * host's SSE reader delivers them) in, run events out. {@code delta.content} → text delta, {@code delta.reasoning_content} → reasoning delta,
 * {@code hermes.tool.progress} (named event or comment line) → tool started/completed, usage →
 * usage reported (once), {@code finish_reason} → how the turn ended, {@code [DONE]} → end.
 * Confined to the run's thread.
 */
final class RemoteTurn {
    static final String PROGRESS = "hermes.tool.progress";

    /**
     * The remote sent something that is not a chat-completions stream. Unchecked, so that it can leave
     * the SSE reader's comment callback; the relay's read loops catch it.
     */
    static final class Malformed extends RuntimeException {
        Malformed(String message) {
            super(message, null, false, false);
        }
    }

    private final ObjectMapper json;
    private final RunContext context;
    private final StringBuilder output = new StringBuilder();
    private final Map<String, Long> toolStarts = new HashMap<>();
    /** The caller's own calls the remote streams ({@code delta.tool_calls}), by index: id, name, argument text. */
    private final java.util.TreeMap<Integer, String[]> calls = new java.util.TreeMap<>();
    private String finishReason;
    private String error;
    private Usage usage = Usage.ZERO;
    private boolean usageSeen;

    RemoteTurn(ObjectMapper json, RunContext context) {
        this.json = json;
        this.context = context;
    }

    /**
     * Feeds one event; returns true at {@code [DONE]}. Each {@code data:} line is a frame of its own, as
     * the relay always read them (a remote may put several chunks in one event).
     */
    boolean event(OutboundHttp.Event event) throws Malformed {
        for (var line : event.data().split("\n", -1)) {
            var data = line.strip();
            if (PROGRESS.equals(event.event())) {
                progress(parse(data));
                continue;
            }
            if (data.equals("[DONE]")) return true;
            chunk(parse(data));
        }
        return false;
    }

    /** Feeds one comment line's text: {@code hermes.tool.progress {...}} is tool progress, the rest is ignored. */
    void comment(String text) throws Malformed {
        var comment = text.strip();
        if (comment.startsWith(PROGRESS + " ")) progress(parse(comment.substring(PROGRESS.length() + 1)));
    }

    private JsonNode parse(String data) throws Malformed {
        try {
            var node = json.readTree(data);
            if (node == null || !node.isObject()) throw new Malformed("expected a JSON object frame");
            return node;
        } catch (IOException e) {
            throw new Malformed("a frame is not JSON");
        }
    }

    private void chunk(JsonNode chunk) throws Malformed {
        var choices = chunk.path("choices");
        if (!choices.isArray()) {
            if (chunk.path("error").isObject()) {
                finishReason = "error";
                error = chunk.path("error").path("message").asText("The remote agent failed");
                return;
            }
            throw new Malformed("a frame has no 'choices'");
        }
        for (var choice : choices) {
            var delta = choice.path("delta");
            var text = delta.path("content");
            if (text.isTextual() && !text.asText().isEmpty()) {
                output.append(text.asText());
                context.emit(new RunEvent.TextDelta(text.asText()));
            }
            for (var call : delta.path("tool_calls")) {
                var entry = calls.computeIfAbsent(call.path("index").asInt(calls.size()), i -> new String[] {null, null, ""});
                if (call.path("id").isTextual()) entry[0] = call.path("id").asText();
                if (call.path("function").path("name").isTextual()) entry[1] = call.path("function").path("name").asText();
                if (call.path("function").path("arguments").isTextual()) entry[2] += call.path("function").path("arguments").asText();
            }
            var reasoning = delta.path("reasoning_content");
            if (reasoning.isTextual() && !reasoning.asText().isEmpty())
                context.emit(new RunEvent.ReasoningDelta(reasoning.asText()));
            var finish = choice.path("finish_reason");
            if (finish.isTextual()) {
                finishReason = finish.asText();
                var message = chunk.path("error").path("message");
                if (message.isTextual()) error = message.asText();
                else if (chunk.path("hermes").path("error").isTextual()) error = chunk.path("hermes").path("error").asText();
            }
        }
        var u = chunk.path("usage");
        if (u.isObject() && !usageSeen) {
            usageSeen = true;
            usage = new Usage(Math.max(0, u.path("prompt_tokens").asLong()), Math.max(0, u.path("completion_tokens").asLong()),
                    Math.max(0, u.path("total_tokens").asLong()));
            context.emit(new RunEvent.UsageReported(usage, usage));
        }
    }

    private void progress(JsonNode notice) {
        var id = notice.path("toolCallId").asText("");
        var tool = notice.path("tool").asText("");
        if (id.isEmpty() || tool.isEmpty()) return;
        switch (notice.path("status").asText("")) {
            case "running" -> {
                if (toolStarts.putIfAbsent(id, System.nanoTime()) != null) return;
                var label = notice.path("label").asText("");
                String preview = label.startsWith(tool + ": ") ? label.substring(tool.length() + 2)
                        : label.isEmpty() || label.equals(tool) ? null : label;
                var emoji = notice.path("emoji").isTextual() ? notice.path("emoji").asText() : null;
                context.emit(new RunEvent.ToolCallStarted(id, tool, json.createObjectNode(), preview, emoji));
            }
            case "completed" -> {
                var started = toolStarts.remove(id);
                if (started == null) return;
                long millis = (System.nanoTime() - started) / 1_000_000;
                context.emit(new RunEvent.ToolCallFinished(id, tool, millis, notice.path("error").asBoolean(false), ""));
            }
            default -> { }
        }
    }

    String output() {
        return output.toString();
    }

    /** The caller's own calls the remote ended the turn with ({@code finish_reason: tool_calls}), in index order. */
    java.util.List<Message.ToolCallRef> toolCalls() {
        var out = new java.util.ArrayList<Message.ToolCallRef>();
        for (var entry : calls.values())
            if (entry[0] != null && entry[1] != null)
                out.add(new Message.ToolCallRef(entry[0], entry[1], ToolTranscript.arguments(json.getNodeFactory().textNode(entry[2]))));
        return out;
    }

    Usage usage() {
        return usage;
    }

    boolean finished() {
        return finishReason != null;
    }

    String finishReason() {
        return finishReason;
    }

    String error() {
        return error;
    }
}
