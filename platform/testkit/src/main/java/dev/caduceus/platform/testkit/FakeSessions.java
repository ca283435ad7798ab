package dev.caduceus.platform.testkit;

import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.agent.Sessions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@link Sessions} backed by a map a test fills with {@link #put}. Records every id that was read.
 * Thread-safe.
 */
public final class FakeSessions implements Sessions {
    private final Map<String, List<Message>> transcripts = new ConcurrentHashMap<>();
    private final List<String> reads = new ArrayList<>();

    /** Stores {@code messages} as the transcript of {@code sessionId}, replacing any earlier one. */
    public FakeSessions put(String sessionId, List<Message> messages) {
        transcripts.put(sessionId, List.copyOf(messages));
        return this;
    }

    @Override
    public List<Message> transcript(String owner, String sessionId) {
        synchronized (reads) {
            reads.add(sessionId);
        }
        return transcripts.getOrDefault(sessionId, List.of());
    }

    /** The session ids read so far, in order. */
    public List<String> reads() {
        synchronized (reads) {
            return List.copyOf(reads);
        }
    }
}
