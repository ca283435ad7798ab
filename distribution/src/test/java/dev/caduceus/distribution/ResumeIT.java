package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.testkit.ScriptedUpstream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kill -9} of {@code bin/caduceus serve} (SQLite) with 100 runs of {@code /v1/runs} in flight, 25 in each
 * state issue 46 names (waiting for the model, inside a {@code sleep 90} terminal call, waiting for an approval,
 * between steps), a job's run inside a terminal call, and background responses (issue 43) in three of those states,
 * each followed by a client: the restarted server resumes every one and each completes
 * with the right transcript, no command runs twice, the event streams have no gap and no duplicate, and the job
 * fired once; each background response's client picks its stream up right after the last event it saw. Prints the
 * time from the kill to each run's {@code run.resumed}.
 */
class ResumeIT {
    static final int PER_STATE = 25;
    /** Background responses per state (waiting for the model, inside the terminal call, between steps). */
    static final int BACKGROUND_PER_STATE = 4;

    @Test
    void aServerKilledWithAHundredRunsInFlightResumesEveryOneAfterItsRestart(@TempDir Path home) throws Exception {
        try (var upstream = ScriptedUpstream.start()) {
            var scenario = new ResumeScenario(upstream, List.of(Caduceus.defaultWorkspace(home)));
            var env = Caduceus.upstreamEnv(upstream);
            env.put("CADUCEUS__MODEL__HEALTH_PROBE", "false");
            env.put("CADUCEUS__SERVER__MAX_CONCURRENT_RUNS", "0");
            var first = Caduceus.serve(home, env);
            try {
                scenario.submit(first, PER_STATE);
                scenario.submitJob(first, ResumeScenario.State.TOOL, "job0");
                for (var state : List.of(ResumeScenario.State.MODEL, ResumeScenario.State.TOOL, ResumeScenario.State.BETWEEN))
                    for (int i = 0; i < BACKGROUND_PER_STATE; i++)
                        scenario.submitBackground(first, state, "bg" + state.name().toLowerCase() + i);
                scenario.awaitStates(first);
                scenario.killing();
            } finally {
                first.process.destroyForcibly(); // kill -9
                first.process.waitFor(30, TimeUnit.SECONDS);
                scenario.dead();
            }
            var second = Caduceus.serve(home, env);
            try {
                var seconds = scenario.verify(List.of(second));
                assertEquals(4 * PER_STATE + 1, seconds.size());
                scenario.verifyBackground(second);
                System.out.println("ResumeIT: kill -9 to run.resumed after a restart (SQLite): " + ResumeScenario.summary(seconds));
                var metrics = second.get("/metrics", Caduceus.KEY_AUTH).body();
                assertTrue(metrics.contains("caduceus_runs_taken_over_total{outcome=\"resumed\"} "
                                + (4 * PER_STATE + 1 + scenario.backgroundResponses())),
                        "the resumptions are counted");
            } finally {
                second.close();
            }
        }
    }
}
