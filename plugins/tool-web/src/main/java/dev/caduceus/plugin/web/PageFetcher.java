package dev.caduceus.plugin.web;

import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.spi.outbound.OutboundHttp.Egress;
import dev.caduceus.spi.tool.Cancellation;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;

/**
 * Fetches one URL for {@code web_extract} through the host's outbound client: {@code http}/{@code https}
 * only; the egress policy ({@link Egress#publicOnly} with {@code tools.web.blocked_hosts}, or
 * {@link Egress#privateAllowed} when {@code tools.web.allow_private_addresses} is set) is checked by
 * the client on the address of every connection, redirects included (the client follows at most 5);
 * the whole fetch, redirects and body included, is bounded by {@code timeout_seconds}; at most
 * {@code max_bytes} of the body are read, and only the content types of the spec are read at all.
 * Blocking; cancelling the run aborts it. Immutable; thread-safe.
 */
final class PageFetcher {
    static final Set<String> HTML = Set.of("text/html", "application/xhtml+xml");
    static final Set<String> TEXT = Set.of("text/plain", "text/markdown", "application/json");
    private static final String ACCEPT = "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5";

    private final OutboundHttp http;
    private final WebSettings settings;
    private final Egress egress;
    private final dev.caduceus.spi.metrics.Metrics.Counter fetches;

    /** A fetched body. {@code mime} is lower-cased without parameters; {@code charset} may be null. */
    record Page(URI url, String mime, Charset charset, byte[] body, boolean truncated) {}

    /** A per-URL failure with the message for the result's {@code error} field. */
    static final class Failure extends Exception {
        Failure(String message) {
            super(message, null, false, false);
        }
    }

    /** @param fetches counts fetches by outcome ({@code ok}, {@code refused} by the egress policy, {@code failed}) */
    PageFetcher(OutboundHttp http, WebSettings settings, dev.caduceus.spi.metrics.Metrics.Counter fetches) {
        this.fetches = fetches;
        this.http = http;
        this.settings = settings;
        this.egress = settings.allowPrivate() ? Egress.privateAllowed(settings.blockedHosts())
                : Egress.publicOnly(settings.blockedHosts());
    }

    /**
     * Fetches {@code url}. A refusal of the egress policy, a timeout or any other failure becomes a
     * {@link Failure} with the message for the model; a cancel of the run is rethrown as the client's
     * {@code CANCELLED} failure.
     */
    Page fetch(URI url, Cancellation cancellation) throws Failure, OutboundHttp.Failure {
        var scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https"))
            throw new Failure("Unsupported URL scheme: " + (scheme.isEmpty() ? "(none)" : scheme));
        if (url.getHost() == null || url.getHost().isEmpty()) throw new Failure("Invalid URL (no host): " + url);
        var request = OutboundHttp.Request.get(url)
                .withHeader("User-Agent", settings.userAgent())
                .withHeader("Accept", ACCEPT)
                .withTimeouts(settings.timeout(), settings.timeout(), settings.timeout())
                .withEgress(egress);
        try (var exchange = http.prepare(request); var link = CancelLink.of(cancellation, exchange)) {
            var page = read(exchange.send());
            fetches.inc("ok");
            return page;
        } catch (Failure e) {
            fetches.inc("failed");
            throw e;
        } catch (OutboundHttp.Failure e) {
            fetches.inc(e.kind() == OutboundHttp.Failure.Kind.REFUSED ? "refused" : "failed");
            if (e.kind() == OutboundHttp.Failure.Kind.CANCELLED) throw e;
            if (e.kind() == OutboundHttp.Failure.Kind.TIMEOUT)
                throw new Failure("Timed out after " + settings.timeout().toSeconds() + " s");
            throw new Failure(e.getMessage()); // a refusal of the egress policy reads "Blocked: …"
        }
    }

    private Page read(OutboundHttp.Response response) throws Failure, OutboundHttp.Failure {
        int status = response.status();
        if (status / 100 == 3 && response.header("Location").isEmpty())
            throw new Failure("HTTP " + status + " without a Location header");
        if (status >= 400) throw new Failure("HTTP " + status);
        if (status / 100 != 2) throw new Failure("Unexpected HTTP status " + status);
        var contentType = response.header("Content-Type").orElse("");
        var mime = mime(contentType);
        if (!mime.isEmpty() && !HTML.contains(mime) && !TEXT.contains(mime))
            throw new Failure("Unsupported content type: " + mime);
        var in = response.body();
        byte[] body;
        boolean truncated;
        try {
            body = in.readNBytes((int) Math.min(settings.maxBytes(), Integer.MAX_VALUE - 16));
            truncated = in.read() != -1;
        } catch (OutboundHttp.Failure e) {
            throw e;
        } catch (IOException e) {
            throw new Failure("Reading the page failed: " + e.getMessage());
        }
        if (mime.isEmpty()) mime = sniff(body);
        return new Page(response.uri(), mime, charset(contentType), body, truncated);
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
        var text = new String(head, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
        return text.contains("<html") || text.contains("<!doctype html") ? "text/html" : "text/plain";
    }
}
