package dev.caduceus.platform.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.spi.http.ClientGoneException;
import dev.caduceus.spi.http.EventStream;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An {@link EventStream} that records every frame. {@link #disconnectAfter(int)} simulates a client
 * that leaves after that many frames. Written by one thread, like the real stream; {@link #frames()}
 * may be read from another while the handler runs (to wait for a frame) or after it returns.
 */
public final class RecordingEventStream implements EventStream {

    /** One recorded frame; {@code kind} is {@code event}, {@code data} or {@code comment}. */
    public record Frame(String kind, Long id, String name, JsonNode data, String text) {}

    private final List<Frame> frames = new CopyOnWriteArrayList<>();
    private int disconnectAfter = Integer.MAX_VALUE;
    private volatile boolean closed;
    private boolean gone;

    /** The client leaves once {@code n} frames have been written. */
    public RecordingEventStream disconnectAfter(int n) {
        this.disconnectAfter = n;
        return this;
    }

    @Override
    public void event(Long id, String name, JsonNode data) throws ClientGoneException {
        write(new Frame("event", id, name, data.deepCopy(), null));
    }

    @Override
    public void data(String raw) throws ClientGoneException {
        write(new Frame("data", null, null, null, raw));
    }

    @Override
    public void comment(String text) throws ClientGoneException {
        write(new Frame("comment", null, null, null, text));
    }

    private void write(Frame frame) throws ClientGoneException {
        if (gone || closed || frames.size() >= disconnectAfter) {
            gone = true;
            throw new ClientGoneException("client gone (simulated)", null);
        }
        frames.add(frame);
    }

    @Override
    public void batch(Frames frames) throws ClientGoneException, InterruptedException {
        frames.write();
    }

    @Override
    public void close() {
        closed = true;
    }

    public List<Frame> frames() {
        return List.copyOf(frames);
    }

    public boolean closed() {
        return closed;
    }
}
