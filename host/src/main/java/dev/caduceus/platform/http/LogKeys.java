package dev.caduceus.platform.http;

/**
 * The MDC keys every log line of a request or run carries (the log format prints them; a JSON line
 * has them as fields). Constants only.
 */
public final class LogKeys {
    /** The request id ({@code X-Request-Id}), set while a request is handled and on the runs it starts. */
    public static final String REQUEST_ID = "request_id";
    /** The run a request started or follows, and on a run's own thread. */
    public static final String RUN_ID = "run_id";

    private LogKeys() {
    }
}
