package dev.caduceus.spi.agent;

import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.message.Usage;
import java.util.List;
import java.util.Set;
import static java.util.Objects.requireNonNull;

/**
 * What a run had done when its server stopped, for the runtime that resumes it ({@link RunContext#resumption()}):
 * the messages it had saved ({@link RunContext#checkpoint}), oldest first, and what the journal says about the tool
 * calls of the last assistant message that have no result. Immutable.
 *
 * @param messages        the turn's saved messages: assistant messages with their tool calls, tool results, caller
 *                        outputs and steering, in the order they were saved
 * @param modelCalls      the model calls made by then
 * @param usage           the turn's usage by then
 * @param startedCalls    ids of tool calls that had started and not finished: their effects are unknown
 * @param approvalPending ids of started calls that were waiting for a person's approval (they had not run yet, so
 *                        they may be asked again)
 * @param resumes         how many times the run has been resumed, this time included
 */
public record Resumption(List<Message> messages, int modelCalls, Usage usage, Set<String> startedCalls,
                         Set<String> approvalPending, int resumes) {
    public Resumption {
        messages = List.copyOf(messages);
        requireNonNull(usage, "usage");
        startedCalls = Set.copyOf(startedCalls);
        approvalPending = Set.copyOf(approvalPending);
    }
}
