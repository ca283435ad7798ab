package dev.caduceus.plugin.responses;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.message.Message;
import java.util.ArrayList;
import java.util.List;

/**
 * A background response's turn as the store keeps it, for the node that takes its run over after its server stopped
 * ({@link ResponseStore#storedTurn}): its chain placement is already written, so a save rewrites only its own
 * messages. Immutable.
 *
 * @param input the turn's input messages as its first save wrote them
 */
record StoredTurn(Envelope envelope, String owner, String sessionId, String parentId, String conversation,
                  List<Message> input) implements SavedTurn {
    StoredTurn {
        requireNonNull(envelope, "envelope");
        requireNonNull(owner, "owner");
        requireNonNull(sessionId, "sessionId");
        input = List.copyOf(input);
    }

    @Override
    public StoredResponse snapshot(ObjectNode body, long createdAt) {
        return new StoredResponse(envelope.id(), owner, body, envelope.instructions(), sessionId, true, createdAt, null,
                parentId);
    }

    @Override
    public TranscriptWrite write(List<Message> produced) {
        var own = new ArrayList<Message>(input.size() + produced.size());
        own.addAll(input);
        own.addAll(produced);
        return new TranscriptWrite(null, List.of(), own, input.size());
    }
}
