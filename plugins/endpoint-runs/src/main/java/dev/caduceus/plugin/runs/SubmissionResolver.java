package dev.caduceus.plugin.runs;

import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.message.Message;
import dev.caduceus.support.services.ResponseHistory;
import dev.caduceus.spi.agent.RunRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;

/**
 * Turns a validated submission into the {@link RunRequest} the host runs:
 * <ul>
 *   <li>history: {@code conversation_history} &gt; the {@code previous_response_id} chain &gt; the
 *       earlier {@code input} elements;</li>
 *   <li>instructions and session id: the body's, else the chain's; no session id leaves it to the
 *       host, which uses the run id;</li>
 *   <li>the chain comes from the Responses store when a plugin contributes one
 *       ({@code ctx.service(ResponseHistory.class)}); an unknown id, or no store, is ignored;</li>
 *   <li>model: absent or the advertised name means the configured upstream model; any other
 *       name is sent on (a bare {@code model} is honored on runs): a model route's name picks that
 *       route, any other goes to the default route's upstreams as it is.</li>
 * </ul>
 * Metadata: {@code source=runs}, {@code model} as sent (else the advertised name; the host echoes
 * it in the run's status) and {@code provider} as sent. Thread-safe; may block on the Responses store.
 */
final class SubmissionResolver {
    private final PlatformContext ctx;

    SubmissionResolver(PlatformContext ctx) {
        this.ctx = ctx;
    }

    /** @param owner the caller's key name: the run is that key's, and only its responses can be continued */
    RunRequest resolve(RunSubmission submission, String sessionKey, dev.caduceus.spi.http.Caller caller) {
        var owner = caller.name();
        var chain = chain(owner, submission.previousResponseId());
        List<Message> history;
        if (submission.explicitHistory() != null) history = submission.explicitHistory();
        else if (chain.isPresent()) history = chain.get().messages();
        else history = submission.inputHistory();
        var messages = new ArrayList<Message>(history);
        messages.add(new Message("user", submission.input(), List.of(), null, null));
        var instructions = submission.instructions() != null ? submission.instructions()
                : chain.map(ResponseHistory.Conversation::instructions).orElse(null);
        var sessionId = submission.sessionId() != null ? submission.sessionId()
                : chain.map(ResponseHistory.Conversation::sessionId).orElse(null);
        var metadata = new LinkedHashMap<String, String>();
        metadata.put("source", "runs");
        metadata.put("model", submission.model() != null ? submission.model() : ctx.global().modelName());
        if (submission.provider() != null) metadata.put("provider", submission.provider());
        return new RunRequest(dev.caduceus.support.wire.ModelField.resolve(ctx, caller, submission.model(), true), messages, instructions, List.of(), sessionId,
                sessionKey, submission.options(), 0, metadata, true, owner).withClientTools(submission.clientTools());
    }

    private Optional<ResponseHistory.Conversation> chain(String owner, String previousResponseId) {
        if (previousResponseId == null) return Optional.empty();
        return ctx.service(ResponseHistory.class).flatMap(store -> store.load(owner, previousResponseId));
    }


}
