package dev.caduceus.plugin.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.caduceus.platform.store.Database;
import dev.caduceus.platform.store.Migrations;
import dev.caduceus.platform.store.Script;
import dev.caduceus.spi.http.Caller;
import dev.caduceus.testkit.TestDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code V2__job_owners.sql} on a database written before keys had names: the jobs stored then belong
 * to the admin key (only it sees them), and they fire as the admin key.
 */
class JobOwnersMigrationTest {
    @TempDir Path dir;

    @Test
    void jobsStoredBeforeV2BelongToTheAdminKey() throws Exception {
        try (var old = Database.open(dir.resolve("test.db"))) { // what TestDatabase opens below
            Migrations.apply(old, "endpoint-jobs", List.of(v1()));
            old.write(sql -> sql.update("INSERT INTO jobs (id, name, prompt, schedule_text, schedule, skills, deliver, "
                    + "repeat_times, enabled, state, created_at, next_run_at, updated_at) VALUES ('0123456789ab', "
                    + "'old', 'p', 'every 1m', '{\"kind\":\"interval\",\"minutes\":1,\"display\":\"every 1m\"}', '[]', "
                    + "'local', NULL, 1, 'scheduled', ?, ?, ?)", JobsFixture.T0.toEpochMilli(),
                    JobsFixture.T0.plusSeconds(60).toEpochMilli(), JobsFixture.T0.toEpochMilli()));
        }
        try (var f = new JobsFixture(dir, TestDatabase.open(dir, "endpoint-jobs"), ZoneOffset.UTC)) {
            assertEquals(Caller.ADMIN, f.job("0123456789ab").owner());
            assertEquals(200, f.call("GET", "/api/jobs/{job_id}", "0123456789ab", null).status());
            assertEquals(404, f.call(Caller.tenant("alice"), "GET", "/api/jobs/{job_id}", "0123456789ab", null).status());
            assertEquals(0, f.call(Caller.tenant("alice"), "GET", "/api/jobs", null, null).responseBody()
                    .path("jobs").size());
            f.clock.advance(Duration.ofMinutes(1));
            f.tick();
            assertEquals(Caller.ADMIN, f.runs.submissions().getFirst().request().owner());
        }
    }

    private static Script v1() throws IOException {
        var name = "V1__jobs.sql";
        try (var in = JobOwnersMigrationTest.class.getResourceAsStream("/db/migration/endpoint-jobs/sqlite/" + name)) {
            return Script.fromFileName(name, new String(in.readAllBytes(), StandardCharsets.UTF_8), name).orElseThrow();
        }
    }
}
