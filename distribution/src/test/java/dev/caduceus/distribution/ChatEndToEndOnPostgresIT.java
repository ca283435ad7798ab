package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@link ChatEndToEndIT} with every server it launches on PostgreSQL. */
@org.junit.jupiter.api.extension.ExtendWith(OnPostgres.class)
class ChatEndToEndOnPostgresIT extends ChatEndToEndIT {
    @Test
    void theServerHereIsOnPostgres() {
        assertTrue(Caduceus.onPostgres());
        assertTrue(server.stdout().contains("  database: postgresql "), server.stdout());
    }
}
