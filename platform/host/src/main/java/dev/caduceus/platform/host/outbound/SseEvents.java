package dev.caduceus.platform.host.outbound;

import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.spi.outbound.OutboundHttp.Event;
import dev.caduceus.spi.outbound.OutboundHttp.Failure;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The one server-sent-event reader: parses the WHATWG event-stream format from a byte stream as it
 * arrives (lines end in LF, CRLF or CR; {@code data:} lines join with LF; {@code event:}, {@code id:};
 * comments handed to an optional consumer, else skipped; {@code retry:} skipped; one leading space
 * after the colon dropped). A line longer than
 * the cap fails the read with {@link Failure.Kind#LINE_TOO_LONG} instead of growing without bound.
 * An event still open at the end of the body is returned (upstreams that omit the last blank line).
 * Not thread-safe: one reader thread.
 */
final class SseEvents implements OutboundHttp.Events {
    private final InputStream in;
    private final int maxLine;
    private final String target;
    private final Consumer<String> comments;
    private final byte[] buffer = new byte[8192];
    private int position;
    private int limit;
    private boolean skipLf;
    private boolean ended;
    private byte[] line = new byte[256];
    private int lineLength;

    SseEvents(InputStream in, int maxLine, String target) {
        this(in, maxLine, target, comment -> { });
    }

    /** @param comments receives each comment line's text, during {@link #next()}, in stream order */
    SseEvents(InputStream in, int maxLine, String target, Consumer<String> comments) {
        this.in = in;
        this.maxLine = maxLine;
        this.target = target;
        this.comments = comments;
    }

    @Override
    public Optional<Event> next() throws Failure {
        String event = null;
        String id = null;
        StringBuilder data = null;
        while (true) {
            var text = readLine();
            if (text == null) {
                return data == null ? Optional.empty() : Optional.of(event(event, data, id));
            }
            if (text.isEmpty()) {
                if (data != null) return Optional.of(event(event, data, id));
                event = null;
                continue;
            }
            if (text.charAt(0) == ':') {
                comments.accept(text.substring(text.length() > 1 && text.charAt(1) == ' ' ? 2 : 1));
                continue;
            }
            int colon = text.indexOf(':');
            String field = colon < 0 ? text : text.substring(0, colon);
            String value = colon < 0 ? "" : text.substring(colon + (colon + 1 < text.length() && text.charAt(colon + 1) == ' ' ? 2 : 1));
            switch (field) {
                case "data" -> {
                    if (data == null) data = new StringBuilder(value.length());
                    else data.append('\n');
                    data.append(value);
                }
                case "event" -> event = value;
                case "id" -> id = value;
                default -> { } // retry and unknown fields carry nothing for a client that does not reconnect
            }
        }
    }

    private static Event event(String event, StringBuilder data, String id) {
        return new Event(event == null || event.isEmpty() ? "message" : event, data.toString(), Optional.ofNullable(id));
    }

    /** The next line without its terminator, or null at the end of the stream. */
    private String readLine() throws Failure {
        lineLength = 0;
        while (true) {
            if (position == limit) {
                if (ended || !fill()) {
                    ended = true;
                    return lineLength == 0 ? null : text();
                }
            }
            while (position < limit) {
                byte b = buffer[position++];
                if (skipLf) {
                    skipLf = false;
                    if (b == '\n') continue;
                }
                if (b == '\n') return text();
                if (b == '\r') {
                    skipLf = true;
                    return text();
                }
                append(b);
            }
        }
    }

    private boolean fill() throws Failure {
        try {
            int n = in.read(buffer, 0, buffer.length);
            if (n <= 0) return false;
            position = 0;
            limit = n;
            return true;
        } catch (Failure f) {
            throw f;
        } catch (IOException e) {
            throw new Failure(Failure.Kind.BROKEN, "Reading the event stream of " + target + " failed: " + e.getMessage(),
                    true, e);
        }
    }

    private void append(byte b) throws Failure {
        if (lineLength == maxLine)
            throw new Failure(Failure.Kind.LINE_TOO_LONG, "An event-stream line from " + target + " is longer than "
                    + maxLine + " bytes", true, null);
        if (lineLength == line.length) line = Arrays.copyOf(line, Math.min(maxLine, line.length * 2));
        line[lineLength++] = b;
    }

    private String text() {
        return new String(line, 0, lineLength, StandardCharsets.UTF_8);
    }
}
