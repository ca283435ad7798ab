package dev.caduceus.plugin.web;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.util.function.Supplier;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.Charset;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;

/**
 * Fetches one URL for {@code web_extract}: every hop passes the {@link AddressGuard},
 * redirects are followed by hand (at most {@value #MAX_REDIRECTS}), at most {@code max_bytes} of the
 * body are read, and only the content types of the spec are read at all. Blocking; the caller
 * interrupts the thread to abort. Immutable; thread-safe.
 */
final class PageFetcher {
    static final int MAX_REDIRECTS = 5;

    private static final Set<Integer> REDIRECTS = Set.of(301, 302, 303, 307, 308);
    static final Set<String> HTML = Set.of("text/html", "application/xhtml+xml");
    static final Set<String> TEXT = Set.of("text/plain", "text/markdown", "application/json");

    private final Supplier<HttpClient> client;
    private final AddressGuard guard;
    private final WebSettings settings;

    /** A fetched body. {@code mime} is lower-cased without parameters; {@code charset} may be null. */
    record Page(URI url, String mime, Charset charset, byte[] body, boolean truncated) {}

    /** A per-URL failure with the message for the result's {@code error} field. */
    static final class Failure extends Exception {
        Failure(String message) {
            super(message, null, false, false);
        }
    }

    PageFetcher(Supplier<HttpClient> client, AddressGuard guard, WebSettings settings) {
        this.client = client;
        this.guard = guard;
        this.settings = settings;
    }

    /**
     * Builds the HTTP client if no call has yet: the first build initialises the JDK's TLS set-up, which
     * must not count against {@code web.extract.timeout_seconds}, so callers do it before their deadline.
     */
    void prepare() {
        client.get();
    }

    Page fetch(URI start) throws Failure, IOException, InterruptedException {
        var current = start;
        for (int hop = 0; ; hop++) {
            try {
                guard.check(current);
            } catch (AddressGuard.Refused e) {
                throw new Failure(e.getMessage());
            }
            var request = HttpRequest.newBuilder(current)
                    .timeout(settings.timeout())
                    .header("User-Agent", settings.userAgent())
                    .header("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5")
                    .GET().build();
            var response = client.get().send(request, HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream in = response.body()) {
                int status = response.statusCode();
                if (REDIRECTS.contains(status)) {
                    if (hop >= MAX_REDIRECTS) throw new Failure("Too many redirects (more than " + MAX_REDIRECTS + ")");
                    current = redirectTarget(current, response);
                    continue;
                }
                if (status >= 400) throw new Failure("HTTP " + status);
                if (status / 100 != 2) throw new Failure("Unexpected HTTP status " + status);
                var contentType = response.headers().firstValue("Content-Type").orElse("");
                var mime = mime(contentType);
                if (!mime.isEmpty() && !HTML.contains(mime) && !TEXT.contains(mime))
                    throw new Failure("Unsupported content type: " + mime);
                var body = in.readNBytes((int) Math.min(settings.maxBytes(), Integer.MAX_VALUE - 16));
                boolean truncated = in.read() != -1;
                if (mime.isEmpty()) mime = sniff(body);
                return new Page(current, mime, charset(contentType), body, truncated);
            }
        }
    }

    private static URI redirectTarget(URI from, HttpResponse<?> response) throws Failure {
        var location = response.headers().firstValue("Location")
                .orElseThrow(() -> new Failure("HTTP " + response.statusCode() + " without a Location header"));
        try {
            return from.resolve(location.strip());
        } catch (IllegalArgumentException e) {
            throw new Failure("Invalid redirect location: " + location);
        }
    }

    static String mime(String contentType) {
        int semi = contentType.indexOf(';');
        return (semi < 0 ? contentType : contentType.substring(0, semi)).strip().toLowerCase(Locale.ROOT);
    }

    private static Charset charset(String contentType) {
        for (var param : contentType.split(";")) {
            var kv = param.strip().split("=", 2);
            if (kv.length == 2 && kv[0].strip().equalsIgnoreCase("charset")) {
                try {
                    return Charset.forName(kv[1].strip().replace("\"", ""));
                } catch (IllegalArgumentException unknown) {
                    return null;
                }
            }
        }
        return null;
    }

    /** For a response without Content-Type: HTML or plain text when it looks like text, else refused. */
    private static String sniff(byte[] body) throws Failure {
        var head = Arrays.copyOf(body, Math.min(body.length, 1024));
        for (byte b : head) if (b == 0) throw new Failure("Unsupported content type: application/octet-stream");
        var text = new String(head, java.nio.charset.StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
        return text.contains("<html") || text.contains("<!doctype html") ? "text/html" : "text/plain";
    }
}
