package dev.caduceus.platform.host.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.host.boot.DatabaseCheck.State;
import dev.caduceus.platform.host.plugin.PluginHost;
import dev.caduceus.platform.host.plugin.TestPluginJars;
import dev.caduceus.platform.host.store.Migrations;
import dev.caduceus.platform.host.store.PlatformMigrations;
import dev.caduceus.platform.host.store.TestStore;
import dev.caduceus.spi.store.PluginDatabase.Dialect;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** {@code caduceus db check}'s findings on SQLite and on PostgreSQL; it never migrates. */
@ParameterizedClass
@EnumSource(Dialect.class)
class DatabaseCheckTest {
    @Parameter Dialect dialect;
    @TempDir Path dir;
    TestStore store;
    Path tables;

    @BeforeEach
    void jars() {
        store = TestStore.create(dialect, dir);
        var builder = TestPluginJars.plugin("with-tables");
        for (var folder : List.of("sqlite", "postgresql")) {
            builder.resource("db/migration/with-tables/" + folder + "/V1__one.sql", "CREATE TABLE one (id TEXT);");
            builder.resource("db/migration/with-tables/" + folder + "/V2__two.sql", "CREATE TABLE two (id TEXT);");
        }
        tables = builder.writeTo(dir.resolve("plugins"));
    }

    private static Map<String, DatabaseCheck.Owner> byOwner(DatabaseCheck check) {
        return check.owners().stream().collect(Collectors.toMap(DatabaseCheck.Owner::owner, Function.identity()));
    }

    private PluginHost.Found found(String id, Path jar, boolean enabled) {
        return new PluginHost.Found(id, "1.0.0", jar, enabled, enabled ? null : "disabled by plugins.disabled in config");
    }

    @Test
    void aDatabaseNoMigrationRanOnHasEverythingPendingAndIsLeftAsItWas() {
        try (var db = store.connect()) {
            var check = DatabaseCheck.of(db, List.of(found("with-tables", tables, true)));
            assertEquals(Migrations.folder(dialect), check.engine());
            assertEquals(db.describe(), check.location());
            var owners = byOwner(check);
            assertEquals(new DatabaseCheck.Owner("platform", 0, PlatformMigrations.scripts(dialect).getLast().version(),
                    State.PENDING, ""), owners.get("platform"));
            assertEquals(State.PENDING, owners.get("with-tables").state());
            assertEquals(List.of(), check.nodes());
            assertEquals(1, check.exitCode());
            assertEquals(Map.of(), Migrations.appliedVersions(db), "check migrated nothing");
        }
    }

    @Test
    void ownersAreComparedWithTheJarsAndOnlyEnabledOnesCount() throws Exception {
        var older = TestPluginJars.plugin("old-tables")
                .resource("db/migration/old-tables/sqlite/V1__x.sql", "CREATE TABLE x (id TEXT);")
                .resource("db/migration/old-tables/postgresql/V1__x.sql", "CREATE TABLE x (id TEXT);")
                .writeTo(dir.resolve("other"));
        var sqliteOnly = TestPluginJars.plugin("sqlite-only")
                .resource("db/migration/sqlite-only/sqlite/V1__y.sql", "CREATE TABLE y (id TEXT);")
                .writeTo(dir.resolve("third"));
        var noTables = TestPluginJars.plugin("no-tables").writeTo(dir.resolve("fourth"));
        try (var db = store.open()) {
            var platform = PlatformMigrations.scripts(dialect).getLast().version();
            Migrations.apply(db, "with-tables", Migrations.fromJar(tables, "with-tables", dialect).subList(0, 1));
            Migrations.apply(db, "gone", List.of(new dev.caduceus.platform.host.store.Script(3, "z", "CREATE TABLE z (id TEXT);", "t")));
            var plugins = List.of(found("with-tables", tables, true), found("old-tables", older, false),
                    found("no-tables", noTables, true), found("sqlite-only", sqliteOnly, true));
            var owners = byOwner(DatabaseCheck.of(db, plugins));
            assertEquals(new DatabaseCheck.Owner("platform", platform, platform, State.CURRENT, ""), owners.get("platform"));
            assertEquals(new DatabaseCheck.Owner("with-tables", 1, 2, State.PENDING, ""), owners.get("with-tables"));
            assertEquals(State.OFF, owners.get("old-tables").state(), "off: not counted");
            assertEquals(State.NO_JAR, owners.get("gone").state());
            assertEquals(3, owners.get("gone").applied());
            assertFalse(owners.containsKey("no-tables"), "a plugin without tables is no owner");
            assertEquals(dialect == Dialect.SQLITE ? State.PENDING : State.UNSUPPORTED, owners.get("sqlite-only").state());
            assertEquals(1, DatabaseCheck.of(db, plugins).exitCode());

            Migrations.apply(db, "with-tables", Migrations.fromJar(tables, "with-tables", dialect));
            var enabledOnly = List.of(found("with-tables", tables, true), found("old-tables", older, false));
            var now = DatabaseCheck.of(db, enabledOnly);
            assertEquals(State.CURRENT, byOwner(now).get("with-tables").state());
            assertEquals(0, now.exitCode(), "up to date; the plugin that is off and the jar-less owner do not count");
        }
    }

    @Test
    void aDatabaseMigratedByANewerReleaseIsNewer() {
        try (var db = store.open()) {
            db.write(sql -> sql.update("INSERT INTO schema_history (owner, version, description, checksum, applied_at) "
                    + "VALUES ('platform', 99, 'future', 'x', '2030-01-01T00:00:00Z')"));
            var platform = byOwner(DatabaseCheck.of(db, List.of())).get("platform");
            assertEquals(State.NEWER, platform.state());
            assertEquals(99, platform.applied());
            assertEquals(1, DatabaseCheck.of(db, List.of()).exitCode());
        }
    }

    @Test
    void theNodesLeasesAreListedWithTheirAge() {
        try (var db = store.open()) {
            var now = Instant.parse("2026-03-01T12:00:00Z");
            db.write(sql -> {
                sql.update("INSERT INTO cluster_nodes (node_id, host, pid, started_at, renewed_at) VALUES (?, ?, ?, ?, ?)",
                        "node-b", "host-b", 42L, now.minusSeconds(3600).toEpochMilli(), now.minusSeconds(1).toEpochMilli());
                return sql.update("INSERT INTO cluster_nodes (node_id, host, pid, started_at, renewed_at) VALUES (?, ?, ?, ?, ?)",
                        "node-a", "host-a", 7L, now.minusSeconds(7200).toEpochMilli(), now.minusSeconds(30).toEpochMilli());
            });
            var nodes = DatabaseCheck.of(db, List.of()).nodes();
            assertEquals(List.of("node-a", "node-b"), nodes.stream().map(DatabaseCheck.Node::nodeId).toList());
            assertEquals(7L, nodes.getFirst().pid());
            assertEquals(Duration.ofSeconds(30), nodes.getFirst().age(now));
            assertTrue(nodes.getFirst().stale(now));
            assertFalse(nodes.getLast().stale(now));
        }
    }
}
