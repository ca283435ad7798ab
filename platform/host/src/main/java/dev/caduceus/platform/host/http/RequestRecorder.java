package dev.caduceus.platform.host.http;

import dev.caduceus.spi.metrics.Metrics;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.RequestLog;
import org.eclipse.jetty.server.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * What happens once a request is complete (Jetty calls it after the last byte, so an event stream
 * is recorded when it ends, with its whole duration): the HTTP metrics and, when
 * {@code logging.requests} is on, one request-log line on the logger {@value #LOGGER}. The line has
 * the method, the route template (never the raw path: it may hold ids), the status, the duration,
 * the bytes sent, the key's name (never the key) and the run id when the request started or followed
 * one; the request id and run id are in the MDC ({@code request_id}, {@code run_id}) while it is
 * logged, and every field is also a key-value pair (fields of a JSON log line).
 *
 * <p>Metrics: {@code caduceus_http_requests_total{route,method,status}},
 * {@code caduceus_http_request_duration_seconds{route,method}}, {@code caduceus_http_sse_streams_open},
 * and {@code caduceus_http_rejected_total{reason}} for 401, 413, 429 and 503 answers, the reason being
 * the error's code. Label values are bounded: route templates, {@value #UNMATCHED} for a path no route
 * has, standard methods or {@code OTHER}.
 *
 * <p>Thread-safe; called on whichever thread completes the response.
 */
public final class RequestRecorder implements RequestLog {
    /** The request log's logger name: {@code logging.levels} can silence it alone. */
    public static final String LOGGER = "dev.caduceus.requests";
    /** The route label of a request no route matched. */
    static final String UNMATCHED = "unmatched";
    private static final String RUN_ID_ATTRIBUTE = RequestRecorder.class.getName() + ".runId";
    private static final String ERROR_CODE_ATTRIBUTE = RequestRecorder.class.getName() + ".errorCode";
    private static final String STREAM_ATTRIBUTE = RequestRecorder.class.getName() + ".stream";
    private static final Set<String> METHODS = Set.of("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS");
    private static final Set<Integer> REJECTIONS = Set.of(401, 413, 429, 503);
    private static final Logger LOG = LoggerFactory.getLogger(LOGGER);

    private final boolean logRequests;
    private final Metrics.Counter requests;
    private final Metrics.Histogram duration;
    private final Metrics.Counter rejected;
    private final AtomicLong openStreams = new AtomicLong();

    /**
     * @param metrics     the host's metrics
     * @param logRequests whether to write the request log ({@code logging.requests})
     */
    public RequestRecorder(Metrics metrics, boolean logRequests) {
        this.logRequests = logRequests;
        this.requests = metrics.counter("http_requests", "HTTP requests by route template, method and status",
                "route", "method", "status");
        this.duration = metrics.timer("http_request_duration", "HTTP request duration until the last byte "
                + "(an event stream: its whole life)", "route", "method");
        this.rejected = metrics.counter("http_rejected", "Requests refused with 401, 413, 429 or 503, by the "
                + "error code", "reason");
        metrics.gauge("http_sse_streams_open", "Event streams (SSE) open now", openStreams::get);
    }

    /** A recorder that counts nothing and logs nothing (tests of the pipeline alone). */
    static RequestRecorder none() {
        return new RequestRecorder(new dev.caduceus.platform.host.metrics.MetricsRegistry().host(), false);
    }

    /** Notes that {@code request} answers with an event stream (open until the request completes). */
    void streamOpened(Request request) {
        if (request.getAttribute(STREAM_ATTRIBUTE) == null) {
            request.setAttribute(STREAM_ATTRIBUTE, Boolean.TRUE);
            openStreams.incrementAndGet();
        }
    }

    /** Notes the error code {@code request} is answered with (the rejection reason). */
    static void errorCode(Request request, String code) {
        if (request != null && code != null) request.setAttribute(ERROR_CODE_ATTRIBUTE, code);
    }

    /** Notes the run {@code request} started or followed (from the handler thread's MDC). */
    static void runId(Request request, String runId) {
        if (runId != null) request.setAttribute(RUN_ID_ATTRIBUTE, runId);
    }

    @Override
    public void log(Request request, Response response) {
        if (request.getAttribute(STREAM_ATTRIBUTE) != null) openStreams.decrementAndGet();
        var match = RouteHandler.match(request);
        var route = match != null ? match.entry().template() : UNMATCHED;
        var method = request.getMethod().toUpperCase(Locale.ROOT);
        if (!METHODS.contains(method)) method = "OTHER";
        int status = response.getStatus();
        long nanos = System.nanoTime() - request.getBeginNanoTime();
        requests.inc(route, method, Integer.toString(status));
        duration.observe(nanos / 1e9, route, method);
        var code = request.getAttribute(ERROR_CODE_ATTRIBUTE) instanceof String c ? c : null;
        if (REJECTIONS.contains(status)) rejected.inc(code != null ? code : "status_" + status);
        if (logRequests && LOG.isInfoEnabled()) log(request, response, route, method, status, nanos);
    }

    private static void log(Request request, Response response, String route, String method, int status, long nanos) {
        var requestId = DefaultHeadersHandler.requestId(request);
        var runId = request.getAttribute(RUN_ID_ATTRIBUTE) instanceof String r ? r : null;
        var key = request.getAttribute(AuthHandler.ATTRIBUTE) instanceof Authenticated a ? a.caller().name() : "-";
        long bytes = Response.getContentBytesWritten(response);
        var millis = nanos / 1_000_000.0;
        var text = String.format(Locale.ROOT, "%s %s %d %.1f ms %d B key=%s%s", method, route, status, millis, bytes,
                key, runId != null ? " run=" + runId : "");
        try (var r = MDC.putCloseable(dev.caduceus.platform.host.logging.MdcKeys.REQUEST_ID, requestId);
             var u = runId != null ? MDC.putCloseable(dev.caduceus.platform.host.logging.MdcKeys.RUN_ID, runId) : null) {
            LOG.atInfo().addKeyValue("method", method).addKeyValue("route", route).addKeyValue("status", status)
                    .addKeyValue("duration_ms", Math.round(millis * 10) / 10.0).addKeyValue("bytes", bytes)
                    .addKeyValue("key", key).log(text);
        }
    }
}
