package dev.caduceus.plugin.chat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.support.wire.ContentNormalizer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Recognises the requests front-ends send for their own UI (a chat title, tags, follow-up
 * suggestions, …) by their structure, so that they get one plain model call instead of an agent
 * turn. One method per front-end; each looks at the whole body, never at one phrase alone, and every
 * one of them requires a single conversation message (front-ends quote the chat history inside it),
 * so an ordinary conversation is never caught. Stateless; thread-safe.
 *
 * <p>The shapes follow the front-ends' own prompt templates: Open WebUI's task templates
 * ({@code backend/open_webui/config.py}, {@code DEFAULT_*_PROMPT_TEMPLATE}), LibreChat's title chain
 * ({@code @librechat/agents}, {@code src/utils/title.ts} and {@code src/run.ts}) and LobeChat's topic
 * chains ({@code packages/prompts/src/chains/summaryTitle.ts}, {@code topicAutoSummary.ts}).
 */
final class Housekeeping {
    /** Open WebUI's {@code metadata.task} values of the tasks it runs for its UI (its {@code TASKS} enum). */
    static final Set<String> OPEN_WEBUI_TASKS = Set.of("title_generation", "tags_generation", "follow_up_generation",
            "emoji_generation", "query_generation", "autocomplete_generation", "image_prompt_generation");

    private static final Pattern OUTPUT_HEADER = Pattern.compile(
            "(?m)^#{3,4} (?:\\*\\*)?Output(?: Rules)?(?:\\*\\*)?:");
    private static final Pattern FIRST_JSON_KEY = Pattern.compile("\\{\\s*\"(\\w+)\"\\s*:");
    private static final String EMOJI_OPENING = "Your task is to reflect the speaker's likely facial expression "
            + "through a fitting emoji.";
    private static final Pattern ROLE_LINE = Pattern.compile("^(?:user|assistant|system|tool): ");

    private Housekeeping() {}

    /** The front-end and its task, e.g. {@code open-webui} / {@code title}. */
    record Task(String frontEnd, String name) {}

    /** The body's messages as text, split into system texts and the rest (in order). */
    record Shape(List<String> systems, List<String> roles, List<String> texts, JsonNode body) {
        static Shape of(JsonNode body) {
            var systems = new ArrayList<String>();
            var roles = new ArrayList<String>();
            var texts = new ArrayList<String>();
            for (var m : body.path("messages")) {
                var role = m.path("role").asText("").trim().toLowerCase(Locale.ROOT);
                var text = ContentNormalizer.flattenText(m.get("content"));
                if (role.equals("system") || role.equals("developer")) systems.add(text);
                else {
                    roles.add(role);
                    texts.add(text);
                }
            }
            return new Shape(systems, roles, texts, body);
        }

        /** The text of the only message besides system ones, when it is a user message. */
        Optional<String> singleUserText() {
            return roles.size() == 1 && roles.getFirst().equals("user") ? Optional.of(texts.getFirst().strip())
                    : Optional.empty();
        }
    }

    /** The housekeeping task {@code body} is, if it is one. Never throws on odd bodies. */
    static Optional<Task> recognise(JsonNode body) {
        if (body == null || !body.isObject() || !body.path("messages").isArray()) return Optional.empty();
        Shape shape;
        try {
            shape = Shape.of(body);
        } catch (RuntimeException e) {
            return Optional.empty(); // content the chat parser refuses: let it answer the 400
        }
        return openWebUi(shape).or(() -> libreChat(shape)).or(() -> lobeChat(shape));
    }

    /**
     * Open WebUI: one user message holding a filled task template: {@code ### Task:} first, an
     * {@code ### Output:} section asking for a JSON object, and the chat history quoted in
     * {@code <chat_history>}; or the emoji template ({@code Message: ```…```}); or, when a pipeline
     * passes it through, {@code metadata.task}.
     */
    static Optional<Task> openWebUi(Shape shape) {
        var text = shape.singleUserText();
        if (text.isEmpty()) return Optional.empty();
        var hint = shape.body().path("metadata").path("task").asText("");
        if (OPEN_WEBUI_TASKS.contains(hint)) return task("open-webui", hint.replace("_generation", ""));
        var t = text.get();
        if (t.startsWith(EMOJI_OPENING) && t.contains("\n\nMessage: ```") && t.endsWith("```"))
            return task("open-webui", "emoji");
        if (!t.startsWith("### Task:")) return Optional.empty();
        var output = OUTPUT_HEADER.matcher(t);
        if (!output.find()) return Optional.empty();
        var after = t.substring(output.end());
        if (!after.toLowerCase(Locale.ROOT).contains("json format")) return Optional.empty();
        int open = t.indexOf("<chat_history>");
        if (open < 0 || t.indexOf("</chat_history>", open) < 0) return Optional.empty();
        var key = FIRST_JSON_KEY.matcher(after);
        var name = !key.find() ? "task" : switch (key.group(1)) {
            case "title" -> "title";
            case "tags" -> "tags";
            case "follow_ups" -> "follow_ups";
            case "queries" -> "queries";
            case "prompt" -> "image_prompt";
            case "text" -> "autocomplete";
            default -> "task";
        };
        return task("open-webui", name);
    }

    /**
     * LibreChat's conversation title: one user message, a short instruction paragraph about a title,
     * a blank line, then the conversation as {@code User: …} / {@code AI: …} (after a
     * {@code Conversation:} line in the completion method's template).
     */
    static Optional<Task> libreChat(Shape shape) {
        var text = shape.singleUserText();
        if (text.isEmpty()) return Optional.empty();
        var t = text.get();
        int blank = t.indexOf("\n\n");
        if (blank <= 0) return Optional.empty();
        var instruction = t.substring(0, blank);
        var rest = t.substring(blank + 2);
        if (rest.startsWith("Conversation:\n")) rest = rest.substring("Conversation:\n".length());
        if (instruction.length() > 1000 || !instruction.toLowerCase(Locale.ROOT).contains("title")) return Optional.empty();
        if (!rest.startsWith("User: ") || !rest.contains("\nAI: ")) return Optional.empty();
        return task("librechat", "title");
    }

    /**
     * LobeChat: a system prompt and one user message holding the transcript. The topic title
     * ({@code chainSummaryTitle}): the system prompt asks for a title under a {@code Rules:} list
     * that names the locale, and the transcript is {@code role: content} lines. The topic summary
     * ({@code chainTopicAutoSummary}): its {@code topic_auto_summary} JSON schema.
     */
    static Optional<Task> lobeChat(Shape shape) {
        if (shape.systems().size() != 1 || shape.singleUserText().isEmpty()) return Optional.empty();
        var schema = shape.body().path("response_format").path("json_schema").path("name").asText("");
        if (schema.equals("topic_auto_summary")) return task("lobe-chat", "topic_summary");
        var system = shape.systems().getFirst();
        var lower = system.toLowerCase(Locale.ROOT);
        int rules = system.indexOf("\nRules:\n- ");
        if (rules < 0 || !lower.contains("title") || !lower.substring(rules).contains("locale")) return Optional.empty();
        if (!ROLE_LINE.matcher(shape.singleUserText().get()).find()) return Optional.empty();
        return task("lobe-chat", "topic_title");
    }

    private static Optional<Task> task(String frontEnd, String name) {
        return Optional.of(new Task(frontEnd, name));
    }
}
