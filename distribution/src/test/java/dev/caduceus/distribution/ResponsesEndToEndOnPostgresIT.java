package dev.caduceus.distribution;

/** {@link ResponsesEndToEndIT} with every server it launches on PostgreSQL. */
@org.junit.jupiter.api.extension.ExtendWith(OnPostgres.class)
class ResponsesEndToEndOnPostgresIT extends ResponsesEndToEndIT {}
