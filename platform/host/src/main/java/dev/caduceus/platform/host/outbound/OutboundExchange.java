package dev.caduceus.platform.host.outbound;

import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.spi.outbound.OutboundHttp.Failure;
import dev.caduceus.spi.outbound.OutboundHttp.Failure.Kind;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.InputStreamRequestContent;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpVersion;

/**
 * One {@link OutboundHttp.Exchange} on a Jetty client. {@link #send()} runs on the caller's thread:
 * it sends the request, waits for the headers, and follows redirects for GET and HEAD (at most
 * {@value #MAX_REDIRECTS}; the client's resolver checks the egress policy on each hop's connection;
 * {@code Authorization} and {@code Cookie} are dropped when a hop leaves the origin). A request is
 * sent again only when it failed before a byte of it could have been written (a pooled connection
 * that the server had closed): once Jetty is about to write its headers, a failure goes to the
 * caller. (Jetty's commit event is no such signal: it comes after the write completes, and a
 * failure that races it, such as the server closing once it has read the request, skips it.) The
 * total timeout spans every hop. {@link #cancel()} aborts the Jetty request in flight from any thread.
 *
 * <p>Threading: {@code send} and the body reads on one thread, {@code cancel} and {@code close} from any.
 */
final class OutboundExchange implements OutboundHttp.Exchange {
    static final int MAX_REDIRECTS = 5;
    private static final Set<Integer> REDIRECTS = Set.of(301, 302, 303, 307, 308);
    private static final Set<String> CREDENTIAL_HEADERS = Set.of("authorization", "cookie", "proxy-authorization");

    private final HttpClient client;
    private final OutboundHttp.Request request;
    private final String target;
    private volatile org.eclipse.jetty.client.Request current;
    private volatile JettyResponse response;
    private volatile boolean cancelled;
    private volatile boolean sent;
    private volatile boolean closed;
    private boolean started;

    OutboundExchange(HttpClient client, OutboundHttp.Request request) {
        this.client = client;
        this.request = request;
        this.target = describe(request.uri());
    }

    @Override
    public OutboundHttp.Response send() throws Failure {
        if (started) throw new IllegalStateException("an exchange is sent once");
        started = true;
        long deadline = request.totalTimeout() == null ? 0 : System.nanoTime() + request.totalTimeout().toNanos();
        var uri = request.uri();
        var headers = request.headers();
        boolean follow = request.followRedirects() && (request.method().equals("GET") || request.method().equals("HEAD"));
        for (int hop = 0; ; hop++) {
            var answer = attempt(uri, headers, deadline);
            var location = answer.header("Location");
            if (!REDIRECTS.contains(answer.status()) || location.isEmpty()) return answer;
            if (!follow) {
                if (!request.followRedirects() && (request.method().equals("GET") || request.method().equals("HEAD")))
                    return answer;
                close();
                throw new Failure(Kind.REDIRECT, describe(uri) + " answered " + answer.status() + " with Location: "
                        + location.get() + "; a " + request.method() + " is never re-sent to another address", true, null);
            }
            answer.release(); // this hop's connection, not the exchange
            response = null;
            if (hop == MAX_REDIRECTS)
                throw new Failure(Kind.REDIRECT, "More than " + MAX_REDIRECTS + " redirects from " + target, true, null);
            URI next;
            try {
                next = uri.resolve(location.get().strip());
            } catch (IllegalArgumentException e) {
                throw new Failure(Kind.REDIRECT, describe(uri) + " redirected to a malformed Location: " + location.get(),
                        true, e);
            }
            var scheme = next.getScheme() == null ? "" : next.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("http") && !scheme.equals("https") || next.getHost() == null)
                throw new Failure(Kind.REDIRECT, describe(uri) + " redirected to " + location.get()
                        + ", which is not an http or https URL", true, null);
            if (!sameOrigin(uri, next))
                headers = headers.stream().filter(h -> !CREDENTIAL_HEADERS.contains(h.getKey().toLowerCase(Locale.ROOT)))
                        .toList();
            uri = next;
        }
    }

    /**
     * One request on the wire, re-sent once if it failed before any byte could have been written.
     * Jetty reports the commit only after its write completed, and not at all when a failure (a reset
     * that followed the server reading the whole request) overtook that report: so "written" is
     * counted from the moment the headers are handed to the connection, for every method.
     */
    private JettyResponse attempt(URI uri, List<Map.Entry<String, String>> headers, long deadline) throws Failure {
        for (int tries = 0; ; tries++) {
            var writing = new AtomicBoolean();
            var listener = new BodyListener();
            var jetty = build(uri, headers, deadline);
            jetty.onRequestHeaders(r -> { // just before the first write: from here on, bytes may be out
                writing.set(true);
                sent = true;
            });
            current = jetty;
            if (cancelled || closed) jetty.abort(new Failures.Cancelled());
            jetty.send(listener);
            try {
                var head = listener.head();
                var answer = new JettyResponse(this, head, listener, uri, request.maxLineBytes());
                response = answer;
                if (closed) answer.close();
                return answer;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                cancel();
                throw new Failure(Kind.CANCELLED, "Request to " + target + " cancelled (thread interrupted)", sent, e);
            } catch (ExecutionException e) {
                var cause = e.getCause();
                var failure = Failures.of(cause, cancelled, writing.get(), describe(uri));
                boolean unsent = !writing.get() && failure.kind() == Kind.BROKEN && request.bodyStream() == null;
                if (tries == 0 && unsent && !cancelled) continue;
                throw failure;
            }
        }
    }

    private static final org.eclipse.jetty.http.HttpField ACCEPT_ENCODING =
            new org.eclipse.jetty.http.PreEncodedHttpField(HttpHeader.ACCEPT_ENCODING, "gzip, deflate");

    private org.eclipse.jetty.client.Request build(URI uri, List<Map.Entry<String, String>> headers, long deadline)
            throws Failure {
        var jetty = client.newRequest(uri).method(request.method());
        boolean acceptEncoding = false;
        for (var h : headers) if (h.getKey().equalsIgnoreCase("Accept-Encoding")) acceptEncoding = true;
        boolean addEncoding = !acceptEncoding;
        var host = hostHeader(uri, headers);
        jetty.headers(fields -> {
            for (var h : headers) {
                if (h.getKey().equalsIgnoreCase("User-Agent")) fields.put(h.getKey(), h.getValue());
                else fields.add(h.getKey(), h.getValue());
            }
            if (addEncoding) fields.put(ACCEPT_ENCODING);
            if (host != null) fields.put(HttpHeader.HOST, host);
        });
        if (request.body() != null) jetty.body(new BytesContent(request.body()));
        else if (request.bodyStream() != null) jetty.body(new InputStreamRequestContent(request.bodyStream()));
        jetty.idleTimeout(request.idleTimeout().toMillis(), TimeUnit.MILLISECONDS);
        if (deadline != 0) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0)
                throw new Failure(Kind.TIMEOUT, "Total timeout after " + request.totalTimeout().toMillis() + " ms calling "
                        + target, sent, null);
            jetty.timeout(left, TimeUnit.MILLISECONDS);
        }
        switch (request.protocol()) {
            case HTTP_1_1 -> jetty.version(HttpVersion.HTTP_1_1);
            case H2C -> jetty.version(HttpVersion.HTTP_2);
            case AUTO -> { } // http/1.1 in clear text; ALPN picks on https
        }
        return jetty;
    }

    /**
     * The {@code Host} header of a clear-text HTTP/1.1 request, or null to leave it to Jetty: the
     * caller set one, or the request may go out as HTTP/2 (h2c asked for, or https where ALPN picks),
     * where the authority is a pseudo-header. Jetty would rebuild and re-parse the whole URI to find
     * it (~1 % of a turn in issue 19's profile); the URI we were given already says it.
     */
    private String hostHeader(URI uri, List<Map.Entry<String, String>> headers) {
        if (!uri.getScheme().equalsIgnoreCase("http") || request.protocol() == OutboundHttp.Protocol.H2C) return null;
        for (var h : headers) if (h.getKey().equalsIgnoreCase("Host")) return null;
        return uri.getPort() < 0 || uri.getPort() == 80 ? uri.getHost() : uri.getHost() + ":" + uri.getPort();
    }

    /** Maps a failure met while reading the body. */
    Failure bodyFailure(Throwable e) {
        return Failures.of(e, cancelled, true, target);
    }

    String target() {
        return target;
    }

    @Override
    public void cancel() {
        cancelled = true;
        var jetty = current;
        if (jetty != null) jetty.abort(new Failures.Cancelled());
    }

    @Override
    public boolean cancelled() {
        return cancelled;
    }

    @Override
    public boolean requestSent() {
        return sent;
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        var answer = response;
        if (answer != null) answer.release();
        else {
            var jetty = current;
            if (jetty != null && started) jetty.abort(new Failures.Cancelled());
        }
    }

    private static boolean sameOrigin(URI a, URI b) {
        return a.getScheme().equalsIgnoreCase(b.getScheme()) && a.getHost().equalsIgnoreCase(b.getHost())
                && port(a) == port(b);
    }

    private static int port(URI uri) {
        return uri.getPort() >= 0 ? uri.getPort() : uri.getScheme().equalsIgnoreCase("https") ? 443 : 80;
    }

    /** Scheme, host, port and path: never the query (it may carry a key) or userinfo. */
    static String describe(URI uri) {
        return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() >= 0 ? ":" + uri.getPort() : "")
                + (uri.getRawPath() == null ? "" : uri.getRawPath());
    }
}
