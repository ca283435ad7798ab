package dev.caduceus.platform.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The platform's own migration scripts (owner {@value Migrations#PLATFORM}), read from this
 * module's resources {@code db/migration/platform/sqlite/}. A module cannot list a resource folder,
 * so the file names are listed here: add a new version to {@link #FILES}.
 */
public final class PlatformMigrations {
    private static final String FOLDER = "/db/migration/platform/sqlite/";
    private static final List<String> FILES = List.of("V1__sessions.sql", "V2__runs.sql", "V3__api_keys.sql", "V4__run_owners.sql");

    private PlatformMigrations() {}

    /** Every platform script, by version. */
    public static List<Script> scripts() {
        var scripts = new ArrayList<Script>();
        for (var file : FILES) {
            try (var in = PlatformMigrations.class.getResourceAsStream(FOLDER + file)) {
                if (in == null) throw new MigrationException("Missing platform migration " + FOLDER + file);
                var sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                scripts.add(Script.fromFileName(file, sql, "platform:" + FOLDER + file).orElseThrow());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return List.copyOf(scripts);
    }
}
