package dev.caduceus.platform.host.logging;

import java.util.List;

/**
 * The SLF4J MDC keys the log formats print: the request and the run a line belongs to. Whoever handles
 * a request or drives a run puts them ({@code MDC.put(MdcKeys.REQUEST_ID, id)}) and removes them after.
 */
public final class MdcKeys {
    /** The request id, as in the {@code X-Request-Id} response header. */
    public static final String REQUEST_ID = "request_id";
    /** The run id ({@code run_…}). */
    public static final String RUN_ID = "run_id";
    /** Every key the formats print, in the order they print them. */
    public static final List<String> ALL = List.of(REQUEST_ID, RUN_ID);

    private MdcKeys() {}
}
