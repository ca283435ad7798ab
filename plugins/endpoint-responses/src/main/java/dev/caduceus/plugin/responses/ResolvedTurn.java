package dev.caduceus.plugin.responses;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.agent.RunRequest;
import java.util.ArrayList;
import java.util.List;

/**
 * One resolved Responses turn: the request, the chain it continues, and the run it starts. Immutable.
 *
 * @param request   the validated body
 * @param envelope  the fixed parts of the response object
 * @param prior     the history before this turn as read (with {@code truncation: "auto"} from a chain,
 *                  only its last 100 messages); stored only when the turn starts a new chain
 * @param parent    where that history ends in the chain store, or null when the turn starts a chain
 * @param parentId  the stored response this turn continues ({@code previous_response_id} or the
 *                  conversation's latest response, even when {@code conversation_history} replaces
 *                  its transcript), or null
 * @param sessionId the chain's session id
 * @param run       what the agent executes (history possibly truncated, plus the input)
 * @param input     the turn's input as kept: the request's, with the server's steps spliced back where a continuation
 *                  names calls the server issued
 */
record ResolvedTurn(ResponseRequest request, Envelope envelope, List<Message> prior, ChainPosition parent, String parentId,
            String sessionId, RunRequest run, List<Message> input) implements SavedTurn {
    ResolvedTurn {
        requireNonNull(request, "request");
        input = List.copyOf(input);
        requireNonNull(envelope, "envelope");
        prior = List.copyOf(prior);
        requireNonNull(sessionId, "sessionId");
        requireNonNull(run, "run");
    }

    @Override
    public String owner() {
        return run.owner();
    }

    @Override
    public String conversation() {
        return request.conversation();
    }

    @Override
    public StoredResponse snapshot(ObjectNode body, long createdAt) {
        // A background response journals its events as a streamed one does, whether or not its creator streams.
        return new StoredResponse(envelope.id(), run.owner(), body, envelope.instructions(), sessionId,
                request.stream() || request.background(), createdAt,
                null, parentId);
    }

    @Override
    public TranscriptWrite write(List<Message> produced) {
        var own = new ArrayList<Message>(input.size() + produced.size());
        own.addAll(input);
        own.addAll(produced);
        return new TranscriptWrite(parent, prior, own, input.size());
    }
}
