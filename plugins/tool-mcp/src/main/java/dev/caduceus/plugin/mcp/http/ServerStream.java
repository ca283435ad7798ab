package dev.caduceus.plugin.mcp.http;

import dev.caduceus.spi.outbound.OutboundHttp.Exchange;
import dev.caduceus.spi.outbound.OutboundHttp.Failure;
import java.io.IOException;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The optional GET event stream of a streamable-HTTP session, on which the server sends messages of
 * its own (notifications such as {@code tools/list_changed}, requests such as {@code ping}). Opened
 * once the session is initialized and re-opened when the server ends it or it falls silent for
 * {@link HttpTarget#LISTEN_IDLE} ({@code Last-Event-ID} sent when the server numbers its events), with
 * a backoff from one to 30 seconds while it keeps failing. A 405 means the server offers none; a 404
 * means the session expired (reported); another 4xx stops it (a warning for 401 and 403); a 5xx is retried.
 *
 * <p>Threading: {@link #run()} on one thread of the transport's; {@link #stop()} from any.
 */
final class ServerStream implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(ServerStream.class);
    private static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

    private enum Next { AGAIN, RETRY, STOP }

    private final HttpTarget target;
    private final Messages messages;
    private final Inbox inbox;
    private final Inflight inflight;
    private final String sessionId;
    private final String protocolVersion;
    private final Consumer<String> expired;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile Exchange current;
    private String lastEventId;

    /** @param expired told the session id when the server answers 404 (the session expired) */
    ServerStream(HttpTarget target, Messages messages, Inbox inbox, Inflight inflight, String sessionId,
                 String protocolVersion, Consumer<String> expired) {
        this.target = target;
        this.messages = messages;
        this.inbox = inbox;
        this.inflight = inflight;
        this.sessionId = sessionId;
        this.protocolVersion = protocolVersion;
        this.expired = expired;
    }

    @Override
    public void run() {
        var backoff = FIRST_BACKOFF;
        try {
            while (!stopping()) {
                var next = once();
                if (next == Next.STOP || stopping()) return;
                if (next == Next.AGAIN) backoff = FIRST_BACKOFF;
                if (stopped.await(backoff.toMillis(), TimeUnit.MILLISECONDS)) return;
                if (next == Next.RETRY) backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF
                        : backoff.multipliedBy(2);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private Next once() {
        var request = target.request("GET", target.url(), HttpTarget.LISTEN_IDLE)
                .withHeader("Accept", "text/event-stream")
                .withHeader("Cache-Control", "no-cache");
        if (sessionId != null) request = request.withHeader("Mcp-Session-Id", sessionId);
        if (protocolVersion != null) request = request.withHeader("MCP-Protocol-Version", protocolVersion);
        if (lastEventId != null) request = request.withHeader("Last-Event-ID", lastEventId);
        var exchange = inflight.open(request, null);
        current = exchange;
        if (stopping()) exchange.cancel();
        boolean delivered = false;
        try (var response = exchange.send()) {
            int status = response.status();
            if (status == 405) {
                log.debug("MCP server {} offers no server stream (GET answered 405)", target.describe());
                return Next.STOP;
            }
            if (status == 404 && sessionId != null) {
                expired.accept(sessionId);
                return Next.STOP;
            }
            if (status >= 500) {
                log.debug("MCP server {} answered the server-stream GET with HTTP {}; retrying", target.describe(), status);
                return Next.RETRY;
            }
            if (status < 200 || status > 299) { // a server without a stream for this client: calls still work
                if (status == 401 || status == 403)
                    log.warn("MCP server {} refused the server-stream GET with HTTP {}; its own notifications "
                            + "(tools/list_changed) will not arrive", target.describe(), status);
                else log.debug("MCP server {} answered the server-stream GET with HTTP {}; no server stream",
                        target.describe(), status);
                return Next.STOP;
            }
            var type = response.header("Content-Type").orElse("").toLowerCase(Locale.ROOT);
            if (!type.contains("text/event-stream")) {
                log.warn("MCP server {} answered the server-stream GET with {}, not an event stream", target.describe(),
                        target.redact(type));
                return Next.STOP;
            }
            var events = response.events();
            for (var event = events.next(); event.isPresent(); event = events.next()) {
                event.get().id().ifPresent(id -> lastEventId = id);
                delivered = true;
                if (!Messages.isMessageEvent(event.get().event()) || event.get().data().isBlank()) continue;
                try {
                    for (var message : messages.read(event.get().data())) inbox.deliver(message);
                } catch (IOException | IllegalArgumentException e) {
                    log.warn("MCP server {} sent a message that is not JSON-RPC on its stream; skipped ({})",
                            target.describe(), e.getClass().getSimpleName());
                }
            }
            return Next.AGAIN; // the server ended it: open it again
        } catch (Failure f) {
            if (stopping()) return Next.STOP;
            if (f.kind() == Failure.Kind.TIMEOUT) return Next.AGAIN; // silent for LISTEN_IDLE: re-open
            log.debug("MCP server {}: server stream failed: {}", target.describe(), f.getMessage());
            return delivered ? Next.AGAIN : Next.RETRY;
        } finally {
            current = null;
            inflight.done(exchange, null);
        }
    }

    private boolean stopping() {
        return stopped.getCount() == 0 || inflight.closed() || inbox.closed();
    }

    /** Ends the stream now and for good. */
    void stop() {
        stopped.countDown();
        var exchange = current;
        if (exchange != null) exchange.cancel();
    }
}
