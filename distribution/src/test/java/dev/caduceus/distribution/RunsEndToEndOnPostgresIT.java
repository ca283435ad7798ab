package dev.caduceus.distribution;

/** {@link RunsEndToEndIT} with every server it launches on PostgreSQL. */
@org.junit.jupiter.api.extension.ExtendWith(OnPostgres.class)
class RunsEndToEndOnPostgresIT extends RunsEndToEndIT {}
