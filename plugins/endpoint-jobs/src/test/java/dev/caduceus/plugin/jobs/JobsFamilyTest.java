package dev.caduceus.plugin.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.caduceus.plugin.jobs.http.JobsFamily;
import dev.caduceus.spi.agent.Runs;
import dev.caduceus.spi.http.HttpHandler;
import dev.caduceus.spi.http.Routes;
import dev.caduceus.spi.store.PluginDatabase.Dialect;
import dev.caduceus.platform.testkit.ManualClock;
import dev.caduceus.platform.testkit.TestDatabase;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What the family declares to the host (its feature flag and named routes), a plain unit test: no
 * request is handled, so no run service is needed (the supplier fails if asked).
 */
class JobsFamilyTest {
    @TempDir Path dir;

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void capabilitiesNameTheRoutesAndTheFlag(Dialect dialect) {
        try (var db = TestDatabase.open(dir, "endpoint-jobs", dialect)) {
            var clock = new ManualClock(JobsHost.T0);
            Supplier<Runs> noRuns = () -> { throw new AssertionError("no run service in this test"); };
            var store = new JobStore(db, new com.fasterxml.jackson.databind.ObjectMapper());
            var family = new JobsFamily(store, new JobCommands(store, noRuns, clock), noRuns, clock, ZoneOffset.UTC);
            assertEquals("{\"jobs_admin\":true}", family.features().toString());
            var names = new ArrayList<String>();
            family.routes(new Routes() {
                @Override
                public Routes route(String method, String template, String name, HttpHandler handler) {
                    if (name != null) names.add(name + " " + method + " " + template);
                    return this;
                }
            });
            assertEquals(List.of("jobs GET /api/jobs", "job_preview POST /api/jobs/preview",
                    "job_runs GET /api/jobs/{job_id}/runs"), names);
        }
    }
}
