package dev.caduceus.plugin.runs;

import dev.caduceus.spi.http.HttpExchange;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where an events subscriber resumes: the {@code Last-Event-ID} header or
 * {@code ?after=N}; with both the larger wins; neither (or an empty header) means 0, from the first
 * event. A value that is not a non-negative integer is a 400 {@code invalid_event_cursor}.
 * Stateless.
 */
final class EventCursor {
    static final String HEADER = "Last-Event-ID";
    private static final Pattern SEQ = Pattern.compile("[0-9]{1,18}");

    private EventCursor() {}

    static long read(HttpExchange exchange) {
        long header = parse(exchange.header(HEADER), null);
        long query = parse(exchange.query("after"), "after");
        return Math.max(header, query);
    }

    private static long parse(Optional<String> raw, String param) {
        if (raw.isEmpty() || raw.get().isEmpty()) return 0;
        var value = raw.get().trim();
        if (!SEQ.matcher(value).matches())
            throw RunErrors.badRequest("invalid_event_cursor", "Invalid event cursor: " + raw.get(), param);
        return Long.parseLong(value);
    }

    /** The 400 for a cursor the server never issued: resuming there would silently skip events. */
    static RuntimeException beyondLastEvent(long cursor, long lastSeq) {
        return RunErrors.badRequest("invalid_event_cursor", "Invalid event cursor: " + cursor
                + " is beyond the last event of this run (" + lastSeq + ")", null);
    }
}
