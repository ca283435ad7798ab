package dev.caduceus.plugin.responses;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.agent.Message;
import dev.caduceus.spi.agent.RunRequest;
import java.util.ArrayList;
import java.util.List;

/**
 * One resolved Responses turn: the request, the chain it continues, and the run it starts. Immutable.
 *
 * @param request   the validated body
 * @param envelope  the fixed parts of the response object
 * @param prior     the whole history before this turn (untruncated; what is stored)
 * @param sessionId the chain's session id
 * @param run       what the agent executes (history possibly truncated, plus the input)
 */
record Turn(ResponseRequest request, Envelope envelope, List<Message> prior, String sessionId, RunRequest run) {
    Turn {
        requireNonNull(request, "request");
        requireNonNull(envelope, "envelope");
        prior = List.copyOf(prior);
        requireNonNull(sessionId, "sessionId");
        requireNonNull(run, "run");
    }

    /** Prior history, this turn's input messages, then {@code produced}. */
    List<Message> transcript(List<Message> produced) {
        var all = new ArrayList<Message>(prior.size() + request.input().size() + produced.size());
        all.addAll(prior);
        all.addAll(request.input());
        all.addAll(produced);
        return all;
    }

    /** The store row for {@code body} with {@code produced} as this turn's new messages. */
    StoredResponse snapshot(ObjectNode body, List<Message> produced, long createdAt) {
        return new StoredResponse(envelope.id(), body, transcript(produced), envelope.instructions(), sessionId,
                request.stream(), createdAt);
    }
}
