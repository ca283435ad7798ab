package dev.caduceus.plugin.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.caduceus.platform.host.store.Database;
import dev.caduceus.platform.host.store.Migrations;
import dev.caduceus.platform.host.store.Script;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code V2__job_owners.sql} on a state database written before keys had names: the host boots on it
 * and applies V2; the jobs stored then belong to the admin key (only it sees them), and fire as it.
 */
class JobOwnersMigrationTest {
    @TempDir Path home;

    @Test
    void jobsStoredBeforeV2BelongToTheAdminKey() throws Exception {
        try (var old = Database.open(home.resolve("caduceus.db"))) { // the host's state database, at V1 of this plugin
            Migrations.apply(old, "endpoint-jobs", List.of(v1()));
            old.write(sql -> sql.update("INSERT INTO jobs (id, name, prompt, schedule_text, schedule, skills, deliver, "
                    + "repeat_times, enabled, state, created_at, next_run_at, updated_at) VALUES ('0123456789ab', "
                    + "'old', 'p', 'every 1m', '{\"kind\":\"interval\",\"minutes\":1,\"display\":\"every 1m\"}', '[]', "
                    + "'local', NULL, 1, 'scheduled', ?, ?, ?)", JobsHost.T0.toEpochMilli(),
                    JobsHost.T0.plusSeconds(60).toEpochMilli(), JobsHost.T0.toEpochMilli()));
        }
        try (var f = JobsHost.start(b -> b.home(home))) {
            assertEquals("admin", f.job("0123456789ab").path("owner").asText());
            var alice = f.as("alice");
            assertEquals(404, alice.get("/api/jobs/0123456789ab").status());
            assertEquals(0, alice.get("/api/jobs").json().path("jobs").size());
            f.clock.advance(Duration.ofMinutes(1));
            var fired = f.awaitRuns("0123456789ab", 1).getFirst().path("run_id").asText();
            assertEquals(fired, f.admin.get("/v1/runs?owner=admin&job_id=0123456789ab").json()
                    .path("data").get(0).path("run_id").asText(), "it fired as the admin key");
        }
    }

    private static Script v1() throws IOException {
        var name = "V1__jobs.sql";
        try (var in = JobOwnersMigrationTest.class.getResourceAsStream("/db/migration/endpoint-jobs/sqlite/" + name)) {
            return Script.fromFileName(name, new String(in.readAllBytes(), StandardCharsets.UTF_8), name).orElseThrow();
        }
    }
}
