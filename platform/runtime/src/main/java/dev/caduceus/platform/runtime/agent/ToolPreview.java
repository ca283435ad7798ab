package dev.caduceus.platform.runtime.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The progress previews and emoji of a tool call. The arguments preview is the telling argument per known
 * tool (command, path, pattern, query, first URL, action), the first string argument otherwise; newlines become spaces, secrets are redacted, and the
 * text is cut to 80 characters plus {@code …}. The output preview is the result's text with secrets
 * redacted, every run of whitespace one space, trimmed, and at most {@value #OUTPUT_MAX} characters
 * (code points; a longer text is cut and ends with {@code …}, as the responses list's previews).
 * Stateless.
 */
final class ToolPreview {
    private static final int MAX = 80;
    static final int OUTPUT_MAX = 200;

    private ToolPreview() {}

    /** The preview of a call, or null when there is nothing to show. */
    static String preview(String tool, ObjectNode args, Redactor redactor) {
        var raw = switch (tool) {
            case "terminal" -> text(args, "command");
            case "process" -> join(text(args, "action"), text(args, "session_id"));
            case "read_file", "write_file" -> text(args, "path");
            case "patch" -> text(args, "path") != null ? text(args, "path") : firstPatchPath(text(args, "patch"));
            case "search_files" -> searchPreview(args);
            case "web_search" -> text(args, "query");
            case "web_extract" -> urlsPreview(args.get("urls"));
            case "memory" -> join(text(args, "action"), text(args, "target"));
            default -> firstString(args);
        };
        if (raw == null) return null;
        var flat = redactor.redact(raw.replace("\r\n", " ").replace('\n', ' ').replace('\r', ' '));
        return flat.length() > MAX ? flat.substring(0, MAX) + "…" : flat;
    }

    /**
     * The preview of a call's result, or null when it has no text. Redacts the whole result before
     * collapsing and cutting it, so a secret is matched in every form the redactor knows (some span
     * lines) and a cut never leaves part of one behind.
     */
    static String output(String result, Redactor redactor) {
        if (result == null || result.isBlank()) return null;
        var plain = redactor.redact(result).replaceAll("(?U)\\s+", " ").strip();
        if (plain.codePointCount(0, plain.length()) <= OUTPUT_MAX) return plain;
        return plain.substring(0, plain.offsetByCodePoints(0, OUTPUT_MAX - 1)).stripTrailing() + "…";
    }

    /** The emoji of a tool: the table's, else the spec's, else ⚡. */
    static String emoji(String tool, String specEmoji) {
        return switch (tool) {
            case "terminal" -> "💻";
            case "process" -> "⚙️";
            case "read_file" -> "📖";
            case "write_file" -> "✍️";
            case "patch" -> "🩹";
            case "search_files" -> "🔎";
            case "web_search" -> "🔍";
            case "web_extract" -> "🌐";
            case "memory" -> "🧠";
            default -> specEmoji == null || specEmoji.isBlank() ? "⚡" : specEmoji;
        };
    }

    private static String text(ObjectNode args, String field) {
        var node = args.get(field);
        return node != null && node.isTextual() ? node.asText() : null;
    }

    private static String join(String a, String b) {
        if (a == null) return b;
        return b == null ? a : a + " " + b;
    }

    private static String searchPreview(ObjectNode args) {
        var pattern = text(args, "pattern");
        var path = text(args, "path");
        if (pattern == null) return null;
        return path == null || path.equals(".") ? pattern : pattern + " in " + path;
    }

    private static String urlsPreview(JsonNode urls) {
        if (urls == null || !urls.isArray() || urls.isEmpty()) return null;
        var first = urls.get(0).asText();
        return urls.size() == 1 ? first : first + " +" + (urls.size() - 1) + " more";
    }

    private static String firstPatchPath(String patch) {
        if (patch == null) return null;
        for (var line : patch.split("\n")) {
            for (var prefix : new String[] {"*** Update File: ", "*** Add File: ", "*** Delete File: "})
                if (line.startsWith(prefix)) return line.substring(prefix.length()).trim();
        }
        return null;
    }

    private static String firstString(ObjectNode args) {
        for (var entry : args.properties())
            if (entry.getValue().isTextual() && !entry.getKey().startsWith("__")) return entry.getValue().asText();
        return null;
    }
}
