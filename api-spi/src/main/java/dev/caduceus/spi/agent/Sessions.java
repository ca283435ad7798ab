package dev.caduceus.spi.agent;

import dev.caduceus.spi.message.Message;
import java.util.List;

/**
 * Session transcripts: every agent turn started with a session id is appended to that session by
 * the host when the turn ends (its input message, then {@link RunResult#messages()}). Endpoints read
 * a transcript to continue a session ({@code X-Hermes-Session-Id}).
 *
 * <p>Threading: thread-safe. Lifecycle: usable after boot; transcripts are kept
 * {@code sessions.retention_days} after last use.
 */
public interface Sessions {

    /**
     * The stored messages of session {@code sessionId} of key {@code owner}
     * ({@link dev.caduceus.spi.http.Caller#name()}: each key has its own sessions), oldest first;
     * empty for an unknown session.
     */
    List<Message> transcript(String owner, String sessionId);
}
