package dev.caduceus.distribution;

/** {@link JobsEndToEndIT} with every server it launches on PostgreSQL. */
@org.junit.jupiter.api.extension.ExtendWith(OnPostgres.class)
class JobsEndToEndOnPostgresIT extends JobsEndToEndIT {}
