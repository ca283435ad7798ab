package dev.caduceus.plugin.console;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.http.EndpointFamily;
import dev.caduceus.spi.http.HttpExchange;
import dev.caduceus.spi.http.Routes;

/**
 * {@code GET /console} (a redirect to {@code /console/}), {@code GET /console/} (the page) and
 * {@code GET /console/{file}} (its scripts and styles, one flat folder): all public, all with the
 * console's strict {@link #CSP}. The app routes by the URL's fragment ({@code #/runs/run_…}), so
 * no other path is needed; an unknown file is the contract's 404 {@code not_found}.
 *
 * <p>Caching: every answer says {@code no-cache} and carries an {@code ETag} (a hash of the file),
 * so a browser revalidates and gets a bodiless 304 while the file is unchanged, and an upgrade is
 * seen at once. Thread-safe.
 */
final class ConsoleFamily implements EndpointFamily {
    static final String BASE = "/console";
    static final String INDEX = "index.html";
    /** No inline script or style anywhere in the app; data: only for images (the empty favicon). */
    static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

    private final ConsoleFiles files;

    ConsoleFamily(ConsoleFiles files) {
        this.files = files;
    }

    @Override
    public String id() {
        return "console";
    }

    @Override
    public String basePath() {
        return BASE;
    }

    @Override
    public void routes(Routes routes) {
        routes.publicGet(BASE, null, ex -> {
            ex.header("Content-Security-Policy", CSP).header("Location", BASE + "/").header("Cache-Control", "no-cache");
            ex.respond(302);
        });
        routes.publicGet(BASE + "/", "console", ex -> serve(ex, INDEX));
        routes.publicGet(BASE + "/{file}", null, ex -> serve(ex, ex.pathParam("file")));
    }

    @Override
    public ObjectNode features() {
        return JsonNodeFactory.instance.objectNode().put("console", true);
    }

    private void serve(HttpExchange ex, String name) {
        ex.header("Content-Security-Policy", CSP);
        var file = files.find(name).orElseThrow(() -> ApiError.notFound("not_found",
                "Unknown route: GET " + ex.path()).withHeader("Content-Security-Policy", CSP).exception());
        ex.header("Cache-Control", "no-cache").header("ETag", file.etag());
        if (ex.header("If-None-Match").filter(file::matches).isPresent()) {
            ex.respond(304);
            return;
        }
        ex.respond(200, file.contentType(), file.bytes());
    }
}
