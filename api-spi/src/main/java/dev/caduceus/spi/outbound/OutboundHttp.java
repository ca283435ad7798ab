package dev.caduceus.spi.outbound;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The host's outbound HTTP client, shared by every plugin ({@code PlatformContext.outbound()}): HTTP/1.1
 * and HTTP/2, the deployment's proxies ({@code HTTPS_PROXY}/{@code NO_PROXY}, or the {@code http.proxy}
 * section), gzip and deflate decoding, connection reuse, and an {@link Egress} policy applied to the
 * address each connection actually goes to.
 *
 * <p>What it promises: a request is re-sent by the client only when not one byte of it was written (a
 * pooled connection found closed); once written, any failure is reported to the caller, so a POST is
 * never duplicated behind the caller's back. Redirects are followed only for {@code GET} and
 * {@code HEAD}, up to 5 hops, the egress policy checked at every hop; a redirect answer to any other
 * method fails with {@link Failure.Kind#REDIRECT} naming the status and {@code Location}.
 *
 * <p>Threading: thread-safe. {@link Exchange#send()} blocks the calling thread (a virtual thread is
 * the intended caller) until the status and headers arrive; the body is read on the caller's thread
 * too. {@link Exchange#cancel()} may be called from any thread and makes a blocked send or read fail at
 * once with {@link Failure.Kind#CANCELLED}. Lifecycle: owned by the host, valid while the plugin runs;
 * every {@link Exchange} must be closed (closing it releases or discards its connection).
 */
public interface OutboundHttp {

    /** Prepares an exchange; nothing is sent before {@link Exchange#send()}, so a cancel hook can be set first. */
    Exchange prepare(Request request);

    /** Prepares and sends {@code request}; close the response (or its exchange) when done. */
    default Response send(Request request) throws Failure {
        return prepare(request).send();
    }

    /** One request and its response, sent once. Not reusable; close it when done. */
    interface Exchange extends AutoCloseable {

        /**
         * Sends the request (following redirects where allowed) and waits for the final status and
         * headers. Called once.
         */
        Response send() throws Failure;

        /** Aborts the exchange from any thread: a blocked send or body read fails with {@code CANCELLED}. */
        void cancel();

        /** Whether {@link #cancel()} was called. */
        boolean cancelled();

        /** Whether any byte of the request was written (then a failure must not be retried blindly). */
        boolean requestSent();

        /** Releases the connection (a body not read to its end discards it). Idempotent. */
        @Override
        void close();
    }

    /** A response whose headers have arrived; its body streams. Closing it closes its exchange. */
    interface Response extends AutoCloseable {

        /** The status code. */
        int status();

        /** The protocol spoken: {@code HTTP/1.1} or {@code HTTP/2.0}. */
        String protocol();

        /** The URI that answered (differs from the request's after redirects). */
        URI uri();

        /** The first value of header {@code name} (case-insensitive). */
        Optional<String> header(String name);

        /** Every value of header {@code name} (case-insensitive), in order. */
        List<String> headers(String name);

        /**
         * The body as it arrives, already decoded from gzip or deflate. Its {@code read} methods throw
         * {@link Failure} (an {@link IOException}) on a timeout, a cancel or a broken connection.
         */
        InputStream body();

        /**
         * At most {@code maxBytes} of the body as UTF-8 text (for error bodies and small answers); the
         * rest is discarded.
         */
        String text(int maxBytes) throws Failure;

        /** The body read as server-sent events; use either this or {@link #body()}, not both. */
        Events events();

        /**
         * As {@link #events()}, and each comment line is handed to {@code comments} (its text after the
         * colon, one leading space dropped), on the reading thread, during {@link Events#next()}, in
         * stream order: for upstreams that carry data in comments (Hermes' {@code : hermes.tool.progress
         * {...}}). An unchecked exception thrown by {@code comments} propagates out of {@code next()}.
         */
        default Events events(Consumer<String> comments) {
            throw new UnsupportedOperationException("this response does not report event-stream comments");
        }

        /** Ends the exchange. Idempotent. */
        @Override
        void close();
    }

    /** A server-sent-event stream, read on the caller's thread. */
    interface Events {
        /**
         * The next event, or empty at the end of the body. Comment lines are skipped (see
         * {@link Response#events(Consumer)}); an event still
         * open when the body ends is returned. A line longer than the request's
         * {@link Request#maxLineBytes()} fails with {@link Failure.Kind#LINE_TOO_LONG}.
         */
        Optional<Event> next() throws Failure;
    }

    /**
     * One server-sent event.
     *
     * @param event its {@code event:} field, {@code "message"} when absent
     * @param data  its {@code data:} lines joined with {@code \n}
     * @param id    its {@code id:} field, or empty
     */
    record Event(String event, String data, Optional<String> id) {
        public Event {
            requireNonNull(event, "event");
            requireNonNull(data, "data");
            requireNonNull(id, "id");
        }
    }

    /**
     * Where a request may connect. {@link #any()} is for targets the operator configured (the model
     * upstream, a relay's remote); {@link #publicOnly} for targets the agent names (a URL to fetch): it
     * refuses loopback, private, link-local, unique-local, multicast and unspecified addresses (IPv4
     * inside IPv6 included), cloud metadata names, and the host globs in {@code blockedHosts}
     * ({@code *.internal.example.com}), checked on the addresses a connection really uses, not on an
     * earlier lookup. {@link #privateAllowed} is for agent-named targets in a deployment that lets them
     * reach its own network on purpose ({@code tools.web.allow_private_addresses}): internal addresses
     * are allowed, but cloud metadata names and addresses and {@code blockedHosts} stay refused.
     *
     * @param reach        how far the request may reach
     * @param blockedHosts host-name globs refused as well (unless {@link Reach#ANY})
     */
    record Egress(Reach reach, List<String> blockedHosts) {
        /** How far a request may reach. */
        public enum Reach {
            /** Any address. */
            ANY,
            /** Public unicast addresses only. */
            PUBLIC_ONLY,
            /** Internal addresses too, but never a cloud metadata name or address. */
            PRIVATE_ALLOWED
        }

        public Egress {
            requireNonNull(reach, "reach");
            blockedHosts = List.copyOf(blockedHosts);
        }

        /** Any address (operator-configured targets). */
        public static Egress any() {
            return new Egress(Reach.ANY, List.of());
        }

        /** Public addresses only, and none of {@code blockedHosts}. */
        public static Egress publicOnly(List<String> blockedHosts) {
            return new Egress(Reach.PUBLIC_ONLY, blockedHosts);
        }

        /** Internal addresses allowed, but no cloud metadata name or address and none of {@code blockedHosts}. */
        public static Egress privateAllowed(List<String> blockedHosts) {
            return new Egress(Reach.PRIVATE_ALLOWED, blockedHosts);
        }
    }

    /** Which HTTP version a request uses. */
    enum Protocol {
        /** HTTP/1.1 for {@code http:}; on {@code https:} HTTP/2 or HTTP/1.1 as the server picks (ALPN). */
        AUTO,
        /** HTTP/1.1 only. */
        HTTP_1_1,
        /** HTTP/2 without TLS by prior knowledge ({@code h2c}) for {@code http:}; HTTP/2 only on {@code https:}. */
        H2C
    }

    /**
     * TLS settings for one target, PEM files. Empty fields mean the JDK's defaults.
     *
     * @param caFile          certificates to trust instead of the JDK's (a private CA)
     * @param certificateFile a client certificate chain to present
     * @param keyFile         the client certificate's PKCS#8 private key (unencrypted)
     */
    record Tls(Optional<Path> caFile, Optional<Path> certificateFile, Optional<Path> keyFile) {
        /** The JDK's trusted CAs, no client certificate. */
        public static final Tls DEFAULT = new Tls(Optional.empty(), Optional.empty(), Optional.empty());

        public Tls {
            requireNonNull(caFile, "caFile");
            requireNonNull(certificateFile, "certificateFile");
            requireNonNull(keyFile, "keyFile");
            if (certificateFile.isPresent() != keyFile.isPresent())
                throw new IllegalArgumentException("a client certificate needs both its certificate and its key file");
        }
    }

    /**
     * A request: immutable; build one with {@link #get}, {@link #post} or {@link #of} and the
     * {@code with…} methods, each returning a copy.
     *
     * @param method          the method, upper case
     * @param uri             an absolute {@code http:} or {@code https:} URI
     * @param headers         header name and value pairs, in order (no {@code Host}, {@code Content-Length}
     *                        or {@code Transfer-Encoding}: the client sets those)
     * @param body            the body: the bytes from its position to its limit, or null for none (or for
     *                        {@code bodyStream}); read, never changed, and not kept past the exchange, so a
     *                        caller may reuse the buffer once the exchange ended
     * @param bodyStream      a body read as it is sent (length unknown), or null
     * @param connectTimeout  time allowed to connect (TLS handshake included)
     * @param idleTimeout     longest silence on the connection once connected
     * @param totalTimeout    the whole exchange, body included, or null for none
     * @param egress          where it may connect
     * @param protocol        the HTTP version
     * @param tls             TLS settings for {@code https:}
     * @param maxLineBytes    the longest server-sent-event line {@link Response#events()} accepts
     * @param followRedirects whether a {@code GET}/{@code HEAD} follows redirects (up to 5)
     */
    record Request(String method, URI uri, List<Map.Entry<String, String>> headers, ByteBuffer body,
                   InputStream bodyStream, Duration connectTimeout, Duration idleTimeout, Duration totalTimeout,
                   Egress egress, Protocol protocol, Tls tls, int maxLineBytes, boolean followRedirects) {
        /** The default {@link #maxLineBytes()}: 1 MiB. */
        public static final int DEFAULT_MAX_LINE_BYTES = 1 << 20;
        /** The default {@link #connectTimeout()}. */
        public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
        /** The default {@link #idleTimeout()}. */
        public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(60);

        public Request {
            requireNonNull(method, "method");
            requireNonNull(uri, "uri");
            method = method.toUpperCase(Locale.ROOT);
            var scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("http") && !scheme.equals("https"))
                throw new IllegalArgumentException("not an http or https URI: " + uri);
            if (uri.getHost() == null) throw new IllegalArgumentException("no host in " + uri);
            headers = List.copyOf(headers);
            for (var h : headers) {
                if (h.getKey().isEmpty() || bad(h.getKey()) || bad(h.getValue()))
                    throw new IllegalArgumentException("header " + h.getKey() + " has a line break or is empty");
            }
            if (body != null && bodyStream != null) throw new IllegalArgumentException("body and bodyStream both set");
            requireNonNull(connectTimeout, "connectTimeout");
            requireNonNull(idleTimeout, "idleTimeout");
            requireNonNull(egress, "egress");
            requireNonNull(protocol, "protocol");
            requireNonNull(tls, "tls");
            if (maxLineBytes < 1) throw new IllegalArgumentException("maxLineBytes must be positive");
        }

        /** A {@code GET} with the defaults: any egress, auto protocol, redirects followed. */
        public static Request get(URI uri) {
            return of("GET", uri);
        }

        /** A {@code POST} of {@code body} with {@code Content-Type: contentType}. */
        public static Request post(URI uri, String contentType, byte[] body) {
            return of("POST", uri).withHeader("Content-Type", contentType).withBody(body);
        }

        /** A request with {@code method} and the defaults. */
        public static Request of(String method, URI uri) {
            return new Request(method, uri, List.of(), null, null, DEFAULT_CONNECT_TIMEOUT, DEFAULT_IDLE_TIMEOUT, null,
                    Egress.any(), Protocol.AUTO, Tls.DEFAULT, DEFAULT_MAX_LINE_BYTES, true);
        }

        /** Adds a header (kept after existing ones; a name may repeat). */
        public Request withHeader(String name, String value) {
            var all = new ArrayList<>(headers);
            all.add(Map.entry(requireNonNull(name, "name"), requireNonNull(value, "value")));
            return new Request(method, uri, all, body, bodyStream, connectTimeout, idleTimeout, totalTimeout, egress,
                    protocol, tls, maxLineBytes, followRedirects);
        }

        public Request withBody(byte[] bytes) {
            return withBody(bytes == null ? null : ByteBuffer.wrap(bytes));
        }

        /** The bytes of {@code bytes} from its position to its limit (a view of them is kept, not a copy). */
        public Request withBody(ByteBuffer bytes) {
            return new Request(method, uri, headers, bytes == null ? null : bytes.slice(), null,
                    connectTimeout, idleTimeout, totalTimeout, egress, protocol, tls, maxLineBytes, followRedirects);
        }

        public Request withBodyStream(InputStream stream) {
            return new Request(method, uri, headers, null, stream, connectTimeout, idleTimeout, totalTimeout, egress,
                    protocol, tls, maxLineBytes, followRedirects);
        }

        /** Sets the three timeouts; {@code total} may be null (none). */
        public Request withTimeouts(Duration connect, Duration idle, Duration total) {
            return new Request(method, uri, headers, body, bodyStream, connect, idle, total, egress, protocol, tls,
                    maxLineBytes, followRedirects);
        }

        public Request withEgress(Egress policy) {
            return new Request(method, uri, headers, body, bodyStream, connectTimeout, idleTimeout, totalTimeout, policy,
                    protocol, tls, maxLineBytes, followRedirects);
        }

        public Request withProtocol(Protocol version) {
            return new Request(method, uri, headers, body, bodyStream, connectTimeout, idleTimeout, totalTimeout, egress,
                    version, tls, maxLineBytes, followRedirects);
        }

        public Request withTls(Tls settings) {
            return new Request(method, uri, headers, body, bodyStream, connectTimeout, idleTimeout, totalTimeout, egress,
                    protocol, settings, maxLineBytes, followRedirects);
        }

        public Request withMaxLineBytes(int max) {
            return new Request(method, uri, headers, body, bodyStream, connectTimeout, idleTimeout, totalTimeout, egress,
                    protocol, tls, max, followRedirects);
        }

        public Request withFollowRedirects(boolean follow) {
            return new Request(method, uri, headers, body, bodyStream, connectTimeout, idleTimeout, totalTimeout, egress,
                    protocol, tls, maxLineBytes, follow);
        }

        /** The first value of header {@code name} set on this request (case-insensitive). */
        public Optional<String> header(String name) {
            return headers.stream().filter(h -> h.getKey().equalsIgnoreCase(name)).map(Map.Entry::getValue).findFirst();
        }

        private static boolean bad(String text) {
            return text.indexOf('\r') >= 0 || text.indexOf('\n') >= 0;
        }

        @Override
        public String toString() {
            return "Request[" + method + " " + uri.getScheme() + "://" + uri.getRawAuthority() + uri.getRawPath() + "]";
        }
    }

    /**
     * Why an exchange failed. Thrown by {@link Exchange#send()} and by reads of a response body.
     * {@link #requestSent()} says whether any byte of the request had been written (a failure after that
     * may have reached the server).
     */
    final class Failure extends IOException {
        /** The closed set of reasons. */
        public enum Kind {
            /** The name did not resolve, or no address accepted a connection. */
            UNREACHABLE,
            /** The egress policy refused the target (a name or every address it resolves to). */
            REFUSED,
            /** The connect, idle or total timeout passed (the message says which). */
            TIMEOUT,
            /** {@link Exchange#cancel()} was called. */
            CANCELLED,
            /** A redirect that is not followed (not a GET, more than 5 hops, or to a bad location). */
            REDIRECT,
            /** The proxy refused or failed the request (its status is in the message). */
            PROXY,
            /** The TLS handshake failed (untrusted certificate, no common protocol). */
            TLS,
            /** The connection broke or the server answered something that is not HTTP. */
            BROKEN,
            /** A server-sent-event line longer than the request's {@code maxLineBytes}. */
            LINE_TOO_LONG
        }

        private final Kind kind;
        private final boolean requestSent;

        public Failure(Kind kind, String message, boolean requestSent, Throwable cause) {
            super(requireNonNull(message, "message"), cause);
            this.kind = requireNonNull(kind, "kind");
            this.requestSent = requestSent;
        }

        public Kind kind() {
            return kind;
        }

        public boolean requestSent() {
            return requestSent;
        }
    }
}
