package dev.caduceus.plugin.mcp.http;

import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.spi.outbound.OutboundHttp.Exchange;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The exchanges a transport has open (message POSTs, the event streams, the closing DELETE), so that
 * closing the transport cancels every one of them, and a {@code notifications/cancelled} can end the
 * POST still waiting for the request it names. Thread-safe; once {@link #cancelAll()} ran, an exchange
 * opened later is cancelled at once.
 */
final class Inflight {
    private final OutboundHttp http;
    private final Set<Exchange> open = ConcurrentHashMap.newKeySet();
    private final Map<String, Exchange> byRequest = new ConcurrentHashMap<>();
    private volatile boolean closed;

    Inflight(OutboundHttp http) {
        this.http = http;
    }

    /** Prepares {@code request}, tracked until {@link #done}; {@code requestId} is the JSON-RPC request it carries, or null. */
    Exchange open(OutboundHttp.Request request, Object requestId) {
        var exchange = http.prepare(request);
        open.add(exchange);
        if (requestId != null) byRequest.put(String.valueOf(requestId), exchange);
        if (closed) exchange.cancel();
        return exchange;
    }

    void done(Exchange exchange, Object requestId) {
        open.remove(exchange);
        if (requestId != null) byRequest.remove(String.valueOf(requestId), exchange);
        exchange.close();
    }

    /** Cancels the POST carrying request {@code requestId}, if it is still open. */
    void cancel(Object requestId) {
        var exchange = byRequest.remove(String.valueOf(requestId));
        if (exchange != null) exchange.cancel();
    }

    /** Cancels every open exchange, and every later one. */
    void cancelAll() {
        closed = true;
        for (var exchange : open) exchange.cancel();
    }

    boolean closed() {
        return closed;
    }
}
