package dev.caduceus.platform.host.http;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.http.ClientGoneException;
import dev.caduceus.spi.http.EventStream;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;

/**
 * Server-sent events over one Jetty response. Each frame is one non-last write,
 * waited on before the next; {@link #close()} is the last write. Frames written inside
 * {@link #batch} go out together, in one write (up to {@link #MAX_BATCH_CHARS}): a 500-token stream
 * spent ~28 % of the server's CPU in one write system call per token. Keepalives are the pump's
 * business ({@code dev.caduceus.support.stream.EventPump}).
 *
 * <p>Threading: confined to the handler's thread. Lifecycle: after {@link #close()} or a failed
 * write, every call throws {@link ClientGoneException}.
 */
final class SseEventStream implements EventStream {
    /** How much a batch collects before it writes (characters of frames). */
    static final int MAX_BATCH_CHARS = 16 * 1024;

    private final ResponseWriter out;
    private final ObjectMapper mapper;
    private boolean closed;
    /** Frames not yet written: only inside one {@link #batch}, or after its write failed. */
    private final StringBuilder pending = new StringBuilder();
    private boolean batching;

    private SseEventStream(ResponseWriter out, ObjectMapper mapper) {
        this.out = out;
        this.mapper = mapper;
    }

    /**
     * Sets status 200 and the SSE headers on the uncommitted response, then commits it with an empty
     * write so the client sees the headers at once.
     */
    static SseEventStream open(ResponseWriter out, ObjectMapper mapper) {
        var response = out.response();
        response.setStatus(200);
        var headers = response.getHeaders();
        headers.put(HttpHeader.CONTENT_TYPE, "text/event-stream");
        headers.put(HttpHeader.CACHE_CONTROL, "no-cache");
        headers.put("X-Accel-Buffering", "no");
        headers.remove(HttpHeader.CONTENT_LENGTH);
        out.write(false, null);
        return new SseEventStream(out, mapper);
    }

    @Override
    public void event(Long id, String name, JsonNode data) throws ClientGoneException {
        var frame = new StringBuilder();
        if (id != null) frame.append("id: ").append(id).append('\n');
        if (name != null) frame.append("event: ").append(singleLine(name)).append('\n');
        frame.append("data: ").append(compact(data)).append("\n\n");
        send(frame.toString());
    }

    @Override
    public void data(String raw) throws ClientGoneException {
        send("data: " + singleLine(raw) + "\n\n");
    }

    @Override
    public void comment(String text) throws ClientGoneException {
        send(": " + singleLine(text) + "\n\n");
    }

    @Override
    public void batch(Frames frames) throws ClientGoneException, InterruptedException {
        if (batching) throw new IllegalStateException("batch is not reentrant");
        batching = true;
        try {
            frames.write();
        } finally {
            batching = false;
        }
        if (!pending.isEmpty()) send("");
    }

    @Override
    public void close() {
        if (closed) return;
        if (!pending.isEmpty()) {
            try {
                send("");
            } catch (ClientGoneException e) {
                return; // the failed write closed the stream
            }
        }
        closed = true;
        out.write(true, null);
    }

    boolean isClosed() {
        return closed;
    }

    /** Writes {@code frame} after any pending frames; inside a batch, only queues it (up to {@link #MAX_BATCH_CHARS}). */
    private void send(String frame) throws ClientGoneException {
        if (closed) throw new ClientGoneException("event stream is closed", null);
        if (batching) {
            pending.append(frame);
            if (pending.length() < MAX_BATCH_CHARS) return;
            frame = "";
        }
        if (!pending.isEmpty()) {
            frame = pending.append(frame).toString();
            pending.setLength(0);
        }
        if (!out.write(false, ByteBuffer.wrap(frame.getBytes(UTF_8)))) {
            closed = true;
            throw new ClientGoneException("client disconnected", out.failure());
        }
    }

    private String compact(JsonNode data) {
        try {
            return mapper.writeValueAsString(data); // compact: Jackson escapes newlines inside strings
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot serialize event data", e);
        }
    }

    private static String singleLine(String text) {
        if (text.indexOf('\n') >= 0 || text.indexOf('\r') >= 0)
            throw new IllegalArgumentException("SSE field must not contain a line break");
        return text;
    }
}
