package dev.caduceus.distribution;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a test class with every server it launches on PostgreSQL ({@link Caduceus#DATABASE_PROPERTY}): the main
 * end-to-end suites run once more this way, as their {@code …OnPostgresIT} subclasses, in the same JVMs as every other
 * end-to-end class (so they fill the JVMs' idle time instead of running after them). Set before the class's
 * {@code @BeforeAll} methods (extensions run first) and cleared after its {@code @AfterAll}; a JVM runs one class at a
 * time. {@code -DskipPostgresITs} skips them.
 */
final class OnPostgres implements BeforeAllCallback, AfterAllCallback {
    /** Set by the build from {@code -DskipPostgresITs} (or {@code -DskipITs}). */
    static final String SKIP_PROPERTY = "caduceus.test.skipPostgres";

    @Override
    public void beforeAll(ExtensionContext context) {
        org.junit.jupiter.api.Assumptions.assumeFalse(Boolean.getBoolean(SKIP_PROPERTY), "-DskipPostgresITs");
        System.setProperty(Caduceus.DATABASE_PROPERTY, "postgresql");
    }

    @Override
    public void afterAll(ExtensionContext context) {
        System.clearProperty(Caduceus.DATABASE_PROPERTY);
    }
}
