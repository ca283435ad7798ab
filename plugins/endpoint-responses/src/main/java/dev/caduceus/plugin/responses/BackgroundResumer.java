package dev.caduceus.plugin.responses;

import dev.caduceus.spi.agent.RunHandle;
import dev.caduceus.spi.agent.RunRecord;
import dev.caduceus.spi.agent.Runs;

/**
 * Background responses across a takeover: the host tells it of each run of origin {@code response:<id>} that this
 * process took over after its server stopped, and the response's stream goes on here (or ends as its run did).
 * Thread-safe.
 */
final class BackgroundResumer implements Runs.Resumer {
    private final BackgroundResponses background;

    BackgroundResumer(BackgroundResponses background) {
        this.background = background;
    }

    @Override
    public String originKind() {
        return BackgroundResponses.ORIGIN_KIND;
    }

    @Override
    public void resumed(RunHandle run, RunRecord record) {
        background.takeOver(responseId(record), run, record.lastSeq());
    }

    @Override
    public void ended(RunRecord record) {
        background.endTakenOver(responseId(record), record);
    }

    private static String responseId(RunRecord record) {
        return record.origin().substring(BackgroundResponses.ORIGIN_KIND.length() + 1);
    }
}
