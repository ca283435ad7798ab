package dev.caduceus.support.wire;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.spi.message.ContentPart;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.http.HttpStatusException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Normalizes one message's wire {@code content} into content parts: strings and text
 * parts become text, image parts are checked and become {@link ContentPart.ImageUrl}, file parts
 * ({@code file}, {@code input_file}, an {@code input_image} by {@code file_id}) become what a {@link FileParts}
 * makes of them (a 400 where none is given), everything else is a 400. All-text content collapses into one {@link ContentPart.Text} joined with {@code \n}.
 * Shared by every endpoint family that accepts message content (chat, Responses, runs), so the same
 * input gets the same 400 everywhere. Stateless and thread-safe; errors name {@code param} (for
 * example {@code messages[2].content}).
 */
public final class ContentNormalizer {
    public static final int MAX_TEXT = 65_536;
    public static final int MAX_PARTS = 1_000;
    public static final int MAX_DEPTH = 10;

    private ContentNormalizer() {}

    /** What a request's file parts become; {@link #NONE} refuses them. */
    @FunctionalInterface
    public interface FileParts {
        /** Refuses every file part: 400 {@code unsupported_content_type}. */
        FileParts NONE = (item, param) -> {
            throw error("unsupported_content_type", "Unsupported content part type '" + type(item)
                    + "': files are not accepted here.", param);
        };

        /** The parts file part {@code item} (a {@code file} or {@code input_file} part) stands for; 400s name {@code param}. */
        List<ContentPart> resolve(JsonNode item, String param);
    }

    /** The normalized parts of {@code content}; an empty text yields an empty list; file parts are a 400. */
    public static List<ContentPart> normalize(JsonNode content, String param) {
        return normalize(content, param, FileParts.NONE);
    }

    /** The normalized parts of {@code content}, its file parts resolved by {@code files}. */
    public static List<ContentPart> normalize(JsonNode content, String param, FileParts files) {
        var parts = new ArrayList<ContentPart>();
        if (content == null || content.isNull() || content.isMissingNode()) return parts;
        if (content.isArray()) {
            collect(content, 1, param, parts, files);
        } else if (content.isObject()) {
            part(content, 1, param, parts, files);
        } else {
            addText(content.asText(), parts);
        }
        return collapse(parts);
    }

    /** The text of {@code content} with images and unknown parts dropped, never an error (system prompts). */
    public static String flattenText(JsonNode content) {
        if (content == null || content.isNull() || content.isMissingNode()) return "";
        if (!content.isArray() && !content.isObject()) return content.asText();
        var texts = new ArrayList<String>();
        flatten(content, 1, texts);
        return String.join("\n", texts);
    }

    private static void flatten(JsonNode node, int depth, List<String> texts) {
        if (depth > MAX_DEPTH) return;
        if (node.isArray()) {
            int n = 0;
            for (var item : node) {
                if (n++ >= MAX_PARTS) break;
                flatten(item, depth + 1, texts);
            }
        } else if (node.isObject()) {
            if (isText(type(node)) && node.hasNonNull("text")) texts.add(node.get("text").asText());
        } else if (!node.isNull()) {
            texts.add(node.asText());
        }
    }

    private static void collect(JsonNode array, int depth, String param, List<ContentPart> out, FileParts files) {
        if (depth > MAX_DEPTH) return; // deeper nesting is dropped, as Hermes does
        int n = 0;
        for (var item : array) {
            if (n++ >= MAX_PARTS) break;
            if (item.isArray()) collect(item, depth + 1, param, out, files);
            else if (item.isObject()) part(item, depth, param, out, files);
            else if (!item.isNull()) addText(item.asText(), out);
        }
    }

    private static void part(JsonNode item, int depth, String param, List<ContentPart> out, FileParts files) {
        var type = type(item);
        if (type.isEmpty() && item.has("text")) type = "text";
        if (isText(type)) {
            var text = item.get("text");
            if (text != null && !text.isNull()) addText(text.asText(), out);
        } else if (type.equals("file") || type.equals("input_file")
                || (type.equals("input_image") && item.hasNonNull("file_id"))) {
            out.addAll(files.resolve(item, param));
        } else if (type.equals("image_url") || type.equals("input_image")) {
            out.add(image(item, param));
        } else {
            throw error("unsupported_content_type", "Unsupported content part type '" + type
                    + "'. Only text, image_url/input_image and file/input_file parts are supported.", param);
        }
    }

    private static ContentPart.ImageUrl image(JsonNode item, String param) {
        var source = item.get("image_url");
        JsonNode urlNode = source;
        JsonNode detailNode = item.get("detail");
        if (source != null && source.isObject()) {
            urlNode = source.get("url");
            if (source.has("detail")) detailNode = source.get("detail");
        }
        var url = urlNode == null || !urlNode.isTextual() ? "" : urlNode.asText().trim();
        if (url.isEmpty())
            throw error("invalid_image_url", "Image parts must include a non-empty image URL.", param);
        var lower = url.toLowerCase(Locale.ROOT);
        if (lower.startsWith("data:")) {
            if (!lower.startsWith("data:image/") || url.indexOf(',') < 0)
                throw error("unsupported_content_type",
                        "Unsupported data URL: only data:image/... URLs with inline data are supported.", param);
        } else if (!lower.startsWith("http://") && !lower.startsWith("https://")) {
            throw error("invalid_image_url", "Image URLs must use http, https or data: URLs.", param);
        }
        String detail = null;
        if (detailNode != null && !detailNode.isNull()) {
            if (!detailNode.isTextual() || detailNode.asText().isBlank())
                throw error("invalid_content_part", "Image detail must be a non-empty string.", param);
            detail = detailNode.asText();
        }
        return new ContentPart.ImageUrl(url, detail);
    }

    private static void addText(String text, List<ContentPart> out) {
        if (text.isEmpty()) return;
        out.add(new ContentPart.Text(cut(text)));
    }

    private static List<ContentPart> collapse(List<ContentPart> parts) {
        for (var part : parts) if (part instanceof ContentPart.ImageUrl) return parts;
        if (parts.isEmpty()) return List.of();
        if (parts.size() == 1) { // the common case, once per message: no join
            var only = (ContentPart.Text) parts.getFirst();
            var text = cut(only.text());
            return List.of(text == only.text() ? only : new ContentPart.Text(text));
        }
        var joined = new StringBuilder();
        for (int i = 0; i < parts.size(); i++) {
            if (i > 0) joined.append('\n');
            joined.append(((ContentPart.Text) parts.get(i)).text());
        }
        return List.of(new ContentPart.Text(cut(joined.toString())));
    }

    private static String cut(String text) {
        if (text.length() <= MAX_TEXT) return text;
        int end = Character.isHighSurrogate(text.charAt(MAX_TEXT - 1)) ? MAX_TEXT - 1 : MAX_TEXT;
        return text.substring(0, end);
    }

    static String type(JsonNode item) {
        var type = item.get("type");
        return type == null || type.isNull() ? "" : type.asText().trim().toLowerCase(Locale.ROOT);
    }

    private static boolean isText(String type) {
        return type.equals("text") || type.equals("input_text") || type.equals("output_text");
    }

    static HttpStatusException error(String code, String message, String param) {
        return ApiError.badRequest(code, message, param).exception();
    }
}
