package dev.caduceus.platform.host.outbound;

import dev.caduceus.spi.outbound.OutboundHttp.Failure;
import dev.caduceus.spi.outbound.OutboundHttp.Failure.Kind;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.channels.UnresolvedAddressException;
import java.util.Locale;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;
import org.eclipse.jetty.client.HttpResponseException;
import org.eclipse.jetty.http.HttpMethod;

/**
 * Names why an exchange failed: walks a Jetty failure's cause chain and picks the {@link Kind} a
 * caller can act on, with a message that names the target (never its query string or credentials).
 * Stateless.
 */
final class Failures {
    private Failures() {}

    /** The marker a cancel aborts a request with. */
    static final class Cancelled extends Exception {
        Cancelled() {
            super("cancelled", null, false, false);
        }
    }

    static Failure of(Throwable failure, boolean cancelled, boolean sent, String target) {
        if (failure instanceof Failure known) return known;
        if (cancelled) return new Failure(Kind.CANCELLED, "Request to " + target + " cancelled", sent, null);
        for (var c = failure; c != null; c = c.getCause()) {
            if (c instanceof Failure known) return known;
            if (c instanceof Cancelled)
                return new Failure(Kind.CANCELLED, "Request to " + target + " cancelled", sent, null);
            if (c instanceof EgressRefusedException)
                return new Failure(Kind.REFUSED, c.getMessage(), false, c);
            if (c instanceof TimeoutException || c instanceof SocketTimeoutException)
                return new Failure(Kind.TIMEOUT, timeout(c.getMessage()) + " calling " + target, sent, c);
            if (c instanceof UnknownHostException || c instanceof UnresolvedAddressException)
                return new Failure(Kind.UNREACHABLE, "Cannot resolve the host of " + target, false, c);
            if (c instanceof ConnectException || c instanceof NoRouteToHostException)
                return new Failure(Kind.UNREACHABLE, "Cannot connect to " + target + ": " + c.getMessage(), false, c);
            if (c instanceof SSLException)
                return new Failure(Kind.TLS, "TLS with " + target + " failed: " + c.getMessage(), sent, c);
            if (c instanceof HttpResponseException e && e.getResponse() != null
                    && HttpMethod.CONNECT.is(e.getResponse().getRequest().getMethod()))
                return new Failure(Kind.PROXY, "The proxy refused to tunnel to " + target + ": "
                        + e.getResponse().getStatus() + " " + nonNull(e.getResponse().getReason()), false, c);
        }
        var message = failure.getMessage() == null ? failure.getClass().getSimpleName() : failure.getMessage();
        return new Failure(Kind.BROKEN, "Connection to " + target + " failed: " + message, sent, failure);
    }

    private static String timeout(String message) {
        var text = message == null ? "" : message.toLowerCase(Locale.ROOT);
        if (text.contains("idle")) return "Idle timeout (no data) " + digits(message);
        if (text.contains("total")) return "Total timeout " + digits(message);
        if (text.contains("connect")) return "Connect timeout";
        return "Timeout";
    }

    private static String digits(String message) {
        var m = java.util.regex.Pattern.compile("(\\d+) ?ms").matcher(message);
        return m.find() ? "after " + m.group(1) + " ms" : "";
    }

    private static String nonNull(String text) {
        return text == null ? "" : text;
    }
}
