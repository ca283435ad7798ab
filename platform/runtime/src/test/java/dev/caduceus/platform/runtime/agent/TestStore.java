package dev.caduceus.platform.runtime.agent;

import dev.caduceus.platform.host.store.Database;
import dev.caduceus.platform.host.store.Migrations;
import dev.caduceus.platform.host.store.PlatformMigrations;
import dev.caduceus.platform.host.store.PostgresTarget;
import dev.caduceus.spi.store.PluginDatabase.Dialect;
import dev.caduceus.platform.testkit.postgres.TestPostgres;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The platform's store for a test, on either engine: a SQLite file in the test's directory, or a fresh
 * database on the test JVM's PostgreSQL server ({@link TestPostgres}). {@link #open()} connects anew each
 * time, with the platform's migrations applied, so a test can play a second node or a process started
 * after a crash on the same data. Immutable; the caller closes what it opened.
 */
record TestStore(Dialect dialect, Path file, TestPostgres.Db postgres) {

    static TestStore create(Dialect dialect, Path dir) {
        return dialect == Dialect.SQLITE ? new TestStore(dialect, dir.resolve("caduceus.db"), null)
                : new TestStore(dialect, null, TestPostgres.shared().newDatabase());
    }

    /** A new {@link Database} on this store's data, without migrations. */
    Database openUnmigrated() {
        return dialect == Dialect.SQLITE ? Database.open(file)
                : Database.connect(PostgresTarget.parse(postgres.url(), Optional.empty(), Optional.empty()), 4);
    }

    /** A new {@link Database} on this store's data. */
    Database open() {
        var db = openUnmigrated();
        try {
            Migrations.apply(db, Migrations.PLATFORM, PlatformMigrations.scripts(db.dialect()));
            return db;
        } catch (RuntimeException e) {
            db.close();
            throw e;
        }
    }
}
