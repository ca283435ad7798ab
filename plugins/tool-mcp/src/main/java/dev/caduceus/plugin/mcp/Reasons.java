package dev.caduceus.plugin.mcp;

import io.modelcontextprotocol.spec.McpError;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeoutException;

/**
 * Short operator-facing reasons for a failure, shown in {@code caduceus plugins},
 * {@code /v1/capabilities} and {@code /health/detailed}, and to the model: never the server's
 * {@code env} or {@code headers} values. Stateless.
 */
final class Reasons {
    private static final int MAX = 300;

    private Reasons() {}

    static String of(Throwable e, ServerConfig server) {
        Throwable cause = e;
        while ((cause instanceof java.util.concurrent.ExecutionException || cause instanceof java.util.concurrent.CompletionException
                || (cause instanceof RuntimeException && cause.getClass() == RuntimeException.class && cause.getCause() != null))
                && cause.getCause() != null)
            cause = cause.getCause();
        String text;
        if (cause instanceof TimeoutException)
            text = cause.getMessage() != null && cause.getMessage().startsWith("still connecting") ? cause.getMessage()
                    : "no answer within connect_timeout (" + seconds(server.connectTimeout()) + ")";
        else if (cause instanceof McpError error && error.getJsonRpcError() != null)
            text = "protocol error: " + error.getJsonRpcError().message() + " (code " + error.getJsonRpcError().code() + ")";
        else if (cause instanceof java.io.IOException io)
            text = (server.stdio() ? "cannot start " + server.command() + ": " : "") + io.getMessage();
        else
            text = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        text = redact(text, server);
        return text.length() > MAX ? text.substring(0, MAX - 3) + "..." : text;
    }

    /** {@code 1.5 s}, {@code 300 s}. */
    static String seconds(Duration duration) {
        double s = duration.toMillis() / 1000.0;
        return (s == Math.rint(s) ? String.valueOf((long) s) : String.format(Locale.ROOT, "%.1f", s)) + " s";
    }

    private static String redact(String text, ServerConfig server) {
        for (var value : server.env().values()) if (value.length() >= 4) text = text.replace(value, "[redacted]");
        for (var value : server.headers().values()) if (value.length() >= 4) text = text.replace(value, "[redacted]");
        return text;
    }
}
