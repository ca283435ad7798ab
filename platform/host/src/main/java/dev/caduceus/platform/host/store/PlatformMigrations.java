package dev.caduceus.platform.host.store;

import dev.caduceus.spi.store.PluginDatabase.Dialect;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The platform's own migration scripts (owner {@value Migrations#PLATFORM}), read from this
 * module's resources {@code db/migration/platform/<dialect>/}. A module cannot list a resource folder,
 * so the file names are listed here: add a new version to {@link #FILES}, with a script of that
 * version (and name) for each dialect.
 */
public final class PlatformMigrations {
    private static final List<String> FILES = List.of("V1__sessions.sql", "V2__runs.sql", "V3__api_keys.sql", "V4__run_owners.sql",
            "V5__cluster.sql", "V6__run_origin.sql", "V7__run_tool_calls.sql", "V8__webhooks.sql", "V9__model_usage.sql",
            "V10__run_resume.sql", "V11__session_next_seq.sql");

    private PlatformMigrations() {}

    /** Every platform script for SQLite, by version. */
    public static List<Script> scripts() {
        return scripts(Dialect.SQLITE);
    }

    /** Every platform script for {@code dialect}, by version. */
    public static List<Script> scripts(Dialect dialect) {
        String folder = "/db/migration/platform/" + Migrations.folder(dialect) + "/";
        var scripts = new ArrayList<Script>();
        for (var file : FILES) {
            try (var in = PlatformMigrations.class.getResourceAsStream(folder + file)) {
                if (in == null) throw new MigrationException("Missing platform migration " + folder + file);
                var sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                scripts.add(Script.fromFileName(file, sql, "platform:" + folder + file).orElseThrow());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return List.copyOf(scripts);
    }
}
