package dev.caduceus.plugin.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.spi.tool.Cancellation;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolCall;
import dev.caduceus.spi.tool.ToolContext;
import dev.caduceus.spi.tool.ToolResult;
import dev.caduceus.spi.tool.ToolRisk;
import dev.caduceus.spi.tool.ToolSpec;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jsoup.Jsoup;

/**
 * {@code web_extract}: fetches up to five URLs concurrently (one virtual thread each) through the
 * {@link PageFetcher}, turns HTML into Markdown, applies the {@link TextWindow} and returns
 * {@code {"results": [{url, title, content, error}]}} indented by two spaces. A cancelled run aborts
 * the fetches in flight and answers {@code Interrupted}. Never throws; per-URL failures fill
 * {@code error}. Thread-safe.
 */
public final class WebExtractTool implements Tool {
    static final int MAX_URLS = 5;
    private static final String DESCRIPTION = "Extract the readable content of web pages as Markdown (title, "
            + "headings, paragraphs, lists, links, code and tables). Pass up to 5 http(s) URLs. Long pages are cut "
            + "to a head and tail window; the full text is saved in the workspace for read_file.";

    private final ToolSpec spec;
    private final PageFetcher fetcher;
    private final TextWindow window;
    private final ObjectMapper json;

    /** Text extracted from one page. */
    private record Extracted(String title, String text) {}

    WebExtractTool(PageFetcher fetcher, WebSettings settings, ObjectMapper json) {
        this.spec = new ToolSpec("web_extract", DESCRIPTION, schema(), "web", List.of(), ToolRisk.NETWORK,
                100_000, true, false, "🌐", true); // reading a page changes nothing
        this.fetcher = fetcher;
        this.window = new TextWindow(settings.maxChars());
        this.json = json;
    }

    @Override
    public ToolSpec spec() {
        return spec;
    }

    @Override
    public ToolResult call(ToolCall call, ToolContext ctx) {
        if (ctx.cancellation().isCancelled()) return new ToolResult.Ok(PrettyJson.INTERRUPTED);
        List<String> urls;
        try {
            urls = urls(call.arguments().get("urls"));
        } catch (IllegalArgumentException e) {
            return new ToolResult.Error("Error extracting content: " + e.getMessage(), false);
        }
        ctx.progress("web_extract: " + urls.getFirst() + (urls.size() > 1 ? " +" + (urls.size() - 1) + " more" : ""));
        var cancellation = ctx.cancellation();
        try (var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            var futures = new ArrayList<Future<Extracted>>();
            for (var url : urls) futures.add(threads.submit(() -> extract(url, cancellation)));
            var results = json.createObjectNode();
            var array = results.putArray("results");
            boolean anyOk = false;
            for (int i = 0; i < urls.size(); i++) {
                var item = array.addObject().put("url", urls.get(i));
                try {
                    var extracted = futures.get(i).get(); // bounded by the fetch's total timeout or a cancel
                    var content = window.apply(extracted.text(), URI.create(urls.get(i).strip()), ctx.workspace());
                    item.put("title", extracted.title()).put("content", content).putNull("error");
                    anyOk = true;
                } catch (ExecutionException e) {
                    failed(item, message(e.getCause() == null ? e : e.getCause()));
                } catch (IOException e) {
                    failed(item, "Could not save the full text: " + message(e));
                }
            }
            if (cancellation.isCancelled()) return new ToolResult.Ok(PrettyJson.INTERRUPTED);
            if (!anyOk) results.put("error", "Content was inaccessible or not found");
            return new ToolResult.Ok(PrettyJson.write(results));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // closing the executor has interrupted the fetches, which abort
            return new ToolResult.Ok(PrettyJson.INTERRUPTED);
        } catch (RuntimeException e) {
            return new ToolResult.Error("Error extracting content: " + message(e), false);
        }
    }

    /** Runs on a virtual thread of the call: fetch, then HTML to Markdown or text as is. */
    private Extracted extract(String url, Cancellation cancellation) throws Exception {
        URI uri;
        try {
            uri = new URI(url.strip());
        } catch (java.net.URISyntaxException e) {
            throw new PageFetcher.Failure("Invalid URL: " + url);
        }
        var page = fetcher.fetch(uri, cancellation);
        if (PageFetcher.HTML.contains(page.mime())) {
            var charset = page.charset() == null ? null : page.charset().name();
            var doc = Jsoup.parse(new ByteArrayInputStream(page.body()), charset, page.url().toString());
            var title = HtmlToMarkdown.title(doc);
            return new Extracted(title, HtmlToMarkdown.convert(doc));
        }
        var charset = page.charset() == null ? StandardCharsets.UTF_8 : page.charset();
        return new Extracted("", new String(page.body(), charset));
    }

    private static void failed(ObjectNode item, String error) {
        item.put("title", "").put("content", "").put("error", error);
    }

    private static String message(Throwable t) {
        if (t instanceof PageFetcher.Failure || t instanceof OutboundHttp.Failure) return t.getMessage();
        var m = t.getMessage();
        return t.getClass().getSimpleName() + (m == null || m.isBlank() ? "" : ": " + m);
    }

    /** The URL strings of the call: an array of strings or one string, the first {@value #MAX_URLS} kept. */
    static List<String> urls(JsonNode node) {
        if (node == null || node.isNull()) throw new IllegalArgumentException("urls is required");
        var urls = new ArrayList<String>();
        if (node.isTextual()) {
            urls.add(node.textValue());
        } else if (node.isArray()) {
            for (var item : node) {
                if (!item.isTextual()) throw new IllegalArgumentException("urls must be an array of strings");
                if (urls.size() < MAX_URLS) urls.add(item.textValue());
            }
        } else {
            throw new IllegalArgumentException("urls must be an array of strings");
        }
        if (urls.isEmpty()) throw new IllegalArgumentException("urls must contain at least one URL");
        return urls;
    }

    private static ObjectNode schema() {
        var schema = JsonNodeFactory.instance.objectNode().put("type", "object");
        schema.putArray("required").add("urls");
        var urls = schema.putObject("properties").putObject("urls");
        urls.put("type", "array").putObject("items").put("type", "string");
        urls.put("maxItems", MAX_URLS);
        return schema;
    }
}
