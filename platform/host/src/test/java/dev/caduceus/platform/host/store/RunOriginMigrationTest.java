package dev.caduceus.platform.host.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code V6__run_origin.sql}: a database written before it keeps its job runs findable. The jobs
 * plugin's {@code job_id} column becomes the generic {@code origin} ({@code job:<id>}); runs without
 * one stay without.
 */
class RunOriginMigrationTest {
    @TempDir
    Path dir;

    @Test
    void jobIdsBecomeOriginsAndTheColumnGoes() {
        try (var db = Database.open(dir.resolve("caduceus.db"))) {
            var scripts = PlatformMigrations.scripts(db.dialect());
            var beforeV6 = scripts.stream().filter(s -> s.version() < 6).toList();
            Migrations.apply(db, Migrations.PLATFORM, beforeV6);
            db.write(sql -> {
                sql.update("INSERT INTO runs (run_id, status, created_at, updated_at, job_id, owner) "
                        + "VALUES ('run_job', 'completed', 1, 1, '0123456789ab', 'admin')");
                sql.update("INSERT INTO runs (run_id, status, created_at, updated_at, owner) "
                        + "VALUES ('run_api', 'completed', 2, 2, 'admin')");
                return null;
            });

            assertEquals(List.of(6, 7, 8, 9, 10, 11), Migrations.apply(db, Migrations.PLATFORM, scripts).stream().map(Script::version).toList());

            assertEquals("job:0123456789ab", origin(db, "run_job"));
            assertEquals("(none)", origin(db, "run_api"));
            var columns = db.read(sql -> sql.query("SELECT name FROM pragma_table_info('runs')", r -> r.getString(1)));
            assertTrue(columns.contains("origin") && !columns.contains("job_id"), columns.toString());
            assertTrue(columns.contains("tool_calls_json"), "V7: a waiting run's pending tool calls " + columns);
        }
    }

    private static String origin(Database db, String runId) {
        return db.read(sql -> sql.queryOne("SELECT COALESCE(origin, '(none)') FROM runs WHERE run_id = ?",
                r -> r.getString(1), runId)).orElseThrow();
    }
}
