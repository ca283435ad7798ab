package dev.caduceus.platform.http;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.agent.RunEventTranslator;
import dev.caduceus.spi.agent.RunSubscription;
import dev.caduceus.spi.http.ClientGoneException;
import dev.caduceus.spi.http.EventStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.eclipse.jetty.http.HttpHeader;

/**
 * Server-sent events over one Jetty response. Each frame is one non-last write,
 * waited on before the next; {@link #close()} is the last write. While {@link #pump} has more
 * entries at hand than the one it is writing (a run that produces faster than the client reads),
 * it translates them all and writes their frames together, once, before it waits again: a
 * 500-token stream spent ~28 % of the server's CPU in one write system call per token. A frame is
 * never held back while the pump waits, so this adds no latency.
 *
 * <p>Threading: confined to the handler's thread. Lifecycle: after {@link #close()} or a failed
 * write, every call throws {@link ClientGoneException}.
 */
final class SseEventStream implements EventStream {
    /** How much a pump step collects before it writes (characters of frames). */
    static final int MAX_BATCH_CHARS = 16 * 1024;

    private final ResponseWriter out;
    private final ObjectMapper mapper;
    private final long keepaliveNanos;
    private long lastWriteNanos = System.nanoTime();
    private boolean closed;
    /** Frames translated but not yet written: only inside one {@link #pump} step, or after it failed. */
    private final StringBuilder pending = new StringBuilder();
    private boolean batching;

    private SseEventStream(ResponseWriter out, ObjectMapper mapper, Duration keepalive) {
        this.out = out;
        this.mapper = mapper;
        this.keepaliveNanos = keepalive.toNanos();
    }

    /**
     * Sets status 200 and the SSE headers on the uncommitted response, then commits it with an empty
     * write so the client sees the headers at once.
     */
    static SseEventStream open(ResponseWriter out, ObjectMapper mapper, Duration keepalive) {
        var response = out.response();
        response.setStatus(200);
        var headers = response.getHeaders();
        headers.put(HttpHeader.CONTENT_TYPE, "text/event-stream");
        headers.put(HttpHeader.CACHE_CONTROL, "no-cache");
        headers.put("X-Accel-Buffering", "no");
        headers.remove(HttpHeader.CONTENT_LENGTH);
        out.write(false, null);
        return new SseEventStream(out, mapper, keepalive);
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
    public PumpResult pump(RunSubscription subscription, RunEventTranslator translator) throws InterruptedException {
        try {
            while (true) {
                long idle = System.nanoTime() - lastWriteNanos;
                if (idle >= keepaliveNanos) {
                    comment("keepalive");
                    continue;
                }
                var entry = subscription.next(Duration.ofNanos(keepaliveNanos - idle));
                if (entry.isPresent()) {
                    if (translateAtHand(entry.get(), subscription, translator)) return PumpResult.FINISHED;
                } else if (subscription.finished()) {
                    return PumpResult.FINISHED;
                }
            }
        } catch (ClientGoneException e) {
            return PumpResult.CLIENT_GONE;
        }
    }

    /**
     * Translates {@code first} and whatever else the subscription has at hand (up to {@link
     * #MAX_BATCH_CHARS} of frames), then writes all their frames at once; whether a terminal entry was
     * among them.
     */
    private boolean translateAtHand(JournalEntry first, RunSubscription subscription, RunEventTranslator translator)
            throws ClientGoneException, InterruptedException {
        boolean terminal;
        batching = true;
        try {
            translator.translate(first, this);
            terminal = first.event().isTerminal();
            while (!terminal && pending.length() < MAX_BATCH_CHARS) {
                var more = subscription.next(Duration.ZERO);
                if (more.isEmpty()) break;
                translator.translate(more.get(), this);
                terminal = more.get().event().isTerminal();
            }
        } finally {
            batching = false;
        }
        if (!pending.isEmpty()) send("");
        return terminal;
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

    /** Writes {@code frame} after any pending frames; inside a pump step, only queues it. */
    private void send(String frame) throws ClientGoneException {
        if (closed) throw new ClientGoneException("event stream is closed", null);
        if (batching) {
            pending.append(frame);
            return;
        }
        if (!pending.isEmpty()) {
            frame = pending.append(frame).toString();
            pending.setLength(0);
        }
        if (!out.write(false, ByteBuffer.wrap(frame.getBytes(UTF_8)))) {
            closed = true;
            throw new ClientGoneException("client disconnected", out.failure());
        }
        lastWriteNanos = System.nanoTime();
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
