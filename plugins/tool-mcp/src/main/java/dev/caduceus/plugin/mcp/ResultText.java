package dev.caduceus.plugin.mcp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Locale;

/**
 * What an MCP result says, as the text of a tool result: text as it is; an image or audio clip as a
 * placeholder naming its type and size ({@code [image: image/png, 12.3 KB, not shown]}), because the
 * tool-result channel carries text only; an embedded resource as its text, or a placeholder for a
 * blob; a resource link as its name and URI. Parts are joined by newlines. A result with no content
 * but {@code structuredContent} shows that as JSON. Stateless.
 */
final class ResultText {
    private ResultText() {}

    static String of(List<McpSchema.Content> content, Object structured, ObjectMapper json) {
        var out = new StringBuilder();
        for (var part : content == null ? List.<McpSchema.Content>of() : content) {
            if (!out.isEmpty()) out.append('\n');
            out.append(part(part));
        }
        if (out.isEmpty() && structured != null) {
            try {
                out.append(json.writeValueAsString(structured));
            } catch (JsonProcessingException e) {
                out.append(structured);
            }
        }
        return out.toString();
    }

    static String part(McpSchema.Content part) {
        return switch (part) {
            case McpSchema.TextContent text -> text.text() == null ? "" : text.text();
            case McpSchema.ImageContent image -> placeholder("image", image.mimeType(), image.data());
            case McpSchema.AudioContent audio -> placeholder("audio", audio.mimeType(), audio.data());
            case McpSchema.EmbeddedResource embedded -> resource(embedded.resource());
            case McpSchema.ResourceLink link -> "[resource link: " + (link.name() == null ? "" : link.name() + " ")
                    + "<" + link.uri() + ">" + (link.mimeType() == null ? "" : ", " + link.mimeType()) + "]";
            default -> "[unknown content, not shown]";
        };
    }

    static String resource(McpSchema.ResourceContents contents) {
        return switch (contents) {
            case McpSchema.TextResourceContents text -> text.text() == null ? "" : text.text();
            case McpSchema.BlobResourceContents blob -> "[resource: " + blob.uri() + ", "
                    + (blob.mimeType() == null ? "binary" : blob.mimeType()) + ", " + size(blob.blob()) + ", not shown]";
            default -> "[resource: " + contents.uri() + ", not shown]";
        };
    }

    private static String placeholder(String kind, String mimeType, String base64) {
        return "[" + kind + ": " + (mimeType == null ? "unknown type" : mimeType) + ", " + size(base64) + ", not shown]";
    }

    /** The decoded size of base64 {@code data}, in KB with one decimal. */
    static String size(String base64) {
        long chars = base64 == null ? 0 : base64.length();
        long padding = base64 == null ? 0 : base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
        long bytes = Math.max(0, chars * 3 / 4 - padding);
        return String.format(Locale.ROOT, "%.1f KB", bytes / 1024.0);
    }
}
