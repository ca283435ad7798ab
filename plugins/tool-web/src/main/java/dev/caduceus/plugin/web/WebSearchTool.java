package dev.caduceus.plugin.web;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolCall;
import dev.caduceus.spi.tool.ToolContext;
import dev.caduceus.spi.tool.ToolResult;
import dev.caduceus.spi.tool.ToolRisk;
import dev.caduceus.spi.tool.ToolSpec;
import java.io.IOException;
import java.util.List;

/**
 * {@code web_search}: asks the configured {@link SearchBackend} and returns
 * {@code {"success": true, "data": {"web": [{title, url, description, position}]}}} indented by two
 * spaces. Unavailable (left out of the tool list) when no backend is configured. The backend call runs
 * on the tool's thread, bounded by {@link BackendChoice#SEARCH_TIMEOUT}; a cancelled run aborts it and
 * answers {@code Interrupted}. Never throws: backend failures become
 * {@code {"error": "Error searching web: …"}}. Thread-safe.
 */
public final class WebSearchTool implements Tool {
    private static final String DESCRIPTION = "Search the web for information on any topic. Returns up to 5 relevant "
            + "results with titles, URLs and descriptions. Use web_extract to read a result's full page.";

    private final ToolSpec spec;
    private final BackendChoice choice;
    private final int maxResults;
    private final ObjectMapper json;

    WebSearchTool(BackendChoice choice, int maxResults, ObjectMapper json) {
        this.spec = new ToolSpec("web_search", DESCRIPTION, schema(), "web", List.of(), ToolRisk.NETWORK,
                100_000, true, false, "🔍", true); // a search changes nothing: repeated after a restart
        this.choice = choice;
        this.maxResults = maxResults;
        this.json = json;
    }

    @Override
    public ToolSpec spec() {
        return spec;
    }

    @Override
    public boolean available() {
        return choice.backend() != null;
    }

    @Override
    public String unavailableReason() {
        return choice.reason();
    }

    @Override
    public ToolResult call(ToolCall call, ToolContext ctx) {
        if (ctx.cancellation().isCancelled()) return new ToolResult.Ok(PrettyJson.INTERRUPTED);
        if (choice.backend() == null) return error("web_search is unavailable: " + choice.reason());
        var query = call.arguments().get("query");
        if (query == null || query.isNull()) return error("query is required");
        if (!query.isTextual()) return error("query must be a string");
        if (query.textValue().isBlank()) return error("query must not be empty");
        ctx.progress("web_search: " + query.textValue());
        try {
            var hits = choice.backend().search(query.textValue().strip(), maxResults, ctx.cancellation());
            return new ToolResult.Ok(PrettyJson.write(result(hits)));
        } catch (OutboundHttp.Failure e) {
            if (e.kind() == OutboundHttp.Failure.Kind.CANCELLED || ctx.cancellation().isCancelled())
                return new ToolResult.Ok(PrettyJson.INTERRUPTED);
            if (e.kind() == OutboundHttp.Failure.Kind.TIMEOUT)
                return error("request timed out after " + BackendChoice.SEARCH_TIMEOUT.toSeconds() + " s");
            return error(e.getMessage());
        } catch (IOException e) {
            return error(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
        } catch (RuntimeException e) {
            return error(e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    private ObjectNode result(List<SearchBackend.Hit> hits) {
        var root = json.createObjectNode().put("success", true);
        var web = root.putObject("data").putArray("web");
        int position = 1;
        for (var hit : hits)
            web.addObject().put("title", hit.title()).put("url", hit.url()).put("description", hit.description())
                    .put("position", position++);
        return root;
    }

    private static ToolResult error(String message) {
        return new ToolResult.Error("Error searching web: " + message, false);
    }

    private static ObjectNode schema() {
        var schema = JsonNodeFactory.instance.objectNode().put("type", "object");
        schema.putArray("required").add("query");
        schema.putObject("properties").putObject("query").put("type", "string").put("description", "search query");
        return schema;
    }
}
