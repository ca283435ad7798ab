package dev.caduceus.platform.batch;

import dev.caduceus.support.json.ToolJson;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.message.Message;
import dev.caduceus.support.reasoning.InlineReasoning;
import dev.caduceus.spi.tool.ToolSpec;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The ShareGPT conversion: the fixed Hermes function-calling system text with the
 * agent's tools, the dataset prompt, then one {@code gpt} entry per assistant message and one
 * {@code tool} entry per run of tool messages. Text is inserted without escaping, exactly as Hermes
 * does. Stateless.
 */
final class ShareGpt {
    static final String SYSTEM_TEMPLATE = load("hermes-system.txt");
    private static final Pattern THINK_BLOCK = Pattern.compile("<think>(.*?)</think>", Pattern.DOTALL);
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private ShareGpt() {}

    /**
     * @param messages  the messages the turn added (assistant, tool, steering user), oldest first
     * @param reasoning the reasoning of each assistant message, aligned with the assistant messages
     *                  of {@code messages} (missing or blank entries: none)
     * @param system    the first entry, {@link #systemEntry} of the turn's tools
     */
    static ArrayNode conversations(String prompt, List<Message> messages, List<String> reasoning,
                                   JsonNode system, ObjectMapper json) {
        var out = NODES.arrayNode();
        out.add(system);
        out.add(entry("human", prompt));
        int assistant = 0;
        for (int i = 0; i < messages.size(); i++) {
            var m = messages.get(i);
            switch (m.role()) {
                case "assistant" -> {
                    var thinking = assistant < reasoning.size() ? reasoning.get(assistant) : null;
                    assistant++;
                    if (!m.toolCalls().isEmpty()) {
                        out.add(entry("gpt", withCalls(m, thinking)));
                        var responses = new StringBuilder();
                        while (i + 1 < messages.size() && messages.get(i + 1).role().equals("tool")) {
                            var t = messages.get(++i);
                            if (!responses.isEmpty()) responses.append('\n');
                            responses.append(toolResponse(t, json));
                        }
                        if (!responses.isEmpty()) out.add(entry("tool", responses.toString()));
                    } else {
                        out.add(entry("gpt", finalAnswer(m, thinking)));
                    }
                }
                case "user" -> out.add(entry("human", m.text()));
                default -> { } // other system and stray tool messages are dropped
            }
        }
        return out;
    }

    /**
     * The conversation's first entry, the system text with {@code tools}, already written: it is the same for every
     * prompt offered the same tools and is most of a trajectory's bytes, so a run makes it once per set of tools.
     */
    static JsonNode systemEntry(List<ToolSpec> tools) {
        return ToolJson.prewritten(entry("system", systemText(tools)));
    }

    /** The Hermes system text with {@code [{"name", "description", "parameters", "required": null}, …]}. */
    static String systemText(List<ToolSpec> tools) {
        var list = NODES.arrayNode();
        for (var t : tools) {
            var o = list.addObject();
            o.put("name", t.name());
            o.put("description", t.description());
            o.set("parameters", t.parameters());
            o.putNull("required");
        }
        return SYSTEM_TEMPLATE.replace("{tools}", ToolJson.compact(list));
    }

    static String withCalls(Message m, String reasoning) {
        var text = new StringBuilder();
        if (hasText(reasoning)) text.append("<think>\n").append(reasoning).append("\n</think>\n");
        var content = m.text();
        if (hasText(content)) text.append(scratchpadToThink(content)).append('\n');
        for (var call : m.toolCalls()) {
            var o = NODES.objectNode();
            o.put("name", call.name());
            o.set("arguments", arguments(call.arguments()));
            text.append("<tool_call>\n").append(ToolJson.compact(o)).append("\n</tool_call>\n");
        }
        var value = text.toString();
        if (!value.contains("<think>")) value = "<think>\n</think>\n" + value;
        return rstrip(value);
    }

    static String finalAnswer(Message m, String reasoning) {
        var text = new StringBuilder();
        if (hasText(reasoning)) text.append("<think>\n").append(reasoning).append("\n</think>\n");
        text.append(scratchpadToThink(m.text()));
        var value = text.toString();
        if (!value.contains("<think>")) value = "<think>\n</think>\n" + value;
        return InlineReasoning.strip(value);
    }

    static String toolResponse(Message tool, ObjectMapper json) {
        var o = NODES.objectNode();
        o.put("tool_call_id", tool.toolCallId());
        o.put("name", tool.name());
        o.set("content", parsedContent(tool.text(), json));
        return "<tool_response>\n" + ToolJson.compact(o) + "\n</tool_response>";
    }

    /** The content as JSON when it starts with {@code {} or {@code [} and parses, else the string. */
    static JsonNode parsedContent(String content, ObjectMapper json) {
        var trimmed = content.strip();
        if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
            try {
                var parsed = json.readTree(trimmed);
                if (parsed != null) return parsed;
            } catch (IOException ignored) {
                // not JSON after all: keep the text
            }
        }
        return NODES.textNode(content);
    }

    /** Whether an assistant turn has reasoning: non-blank stored reasoning, a scratchpad or a non-empty think block. */
    static boolean hasReasoning(Message m, String reasoning) {
        if (hasText(reasoning)) return true;
        var content = m.text();
        if (content.contains("<REASONING_SCRATCHPAD>")) return true;
        var think = THINK_BLOCK.matcher(content);
        while (think.find()) if (!think.group(1).isBlank()) return true;
        return false;
    }

    private static JsonNode arguments(ObjectNode arguments) {
        if (arguments.has(dev.caduceus.platform.runtime.agent.ToolDispatcher.INVALID_ARGUMENTS)) return NODES.objectNode();
        return arguments;
    }

    /** Python's truthiness of {@code s and s.strip()}. */
    static boolean hasText(String s) {
        return s != null && !InlineReasoning.strip(s).isEmpty();
    }

    /** Python's {@code str.rstrip()}. */
    static String rstrip(String s) {
        int end = s.length();
        while (end > 0 && InlineReasoning.isSpace(s.charAt(end - 1))) end--;
        return s.substring(0, end);
    }

    private static String scratchpadToThink(String content) {
        return content.replace("<REASONING_SCRATCHPAD>", "<think>").replace("</REASONING_SCRATCHPAD>", "</think>");
    }

    private static ObjectNode entry(String from, String value) {
        var o = NODES.objectNode();
        o.put("from", from);
        o.put("value", value);
        return o;
    }

    private static String load(String resource) {
        try (InputStream in = ShareGpt.class.getResourceAsStream(resource)) {
            if (in == null) throw new IllegalStateException(resource + " is missing from the platform jar");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
