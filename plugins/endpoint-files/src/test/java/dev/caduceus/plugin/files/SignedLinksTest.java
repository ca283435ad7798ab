package dev.caduceus.plugin.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.testkit.ManualClock;
import dev.caduceus.platform.testkit.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link SignedLinks} on the plugin's real tables: one key per database, links valid until they expire, for one file. */
class SignedLinksTest {
    @TempDir Path dir;

    @Test
    void aLinkIsValidForItsFileUntilItExpiresAndTheKeyIsSharedThroughTheDatabase() {
        var clock = new ManualClock(Instant.parse("2026-12-05T10:00:00Z"));
        try (var db = TestDatabase.open(dir, "endpoint-files")) {
            var links = SignedLinks.load(db, clock);
            var link = links.link("file-0123456789abcdef01234567");
            var m = java.util.regex.Pattern.compile("/v1/files/(file-[0-9a-f]{24})/download\\?expires=([0-9]+)&signature=([0-9a-f]{64})")
                    .matcher(link);
            assertTrue(m.matches(), link);
            assertEquals(clock.instant().plus(SignedLinks.LIFETIME).getEpochSecond(), Long.parseLong(m.group(2)));
            assertTrue(links.valid(m.group(1), m.group(2), m.group(3)));
            assertTrue(SignedLinks.load(db, clock).valid(m.group(1), m.group(2), m.group(3)), "another node: the same key");
            assertFalse(links.valid("file-0123456789abcdef01234568", m.group(2), m.group(3)), "another file");
            assertFalse(links.valid(m.group(1), String.valueOf(Long.parseLong(m.group(2)) + 1), m.group(3)), "another time");
            assertFalse(links.valid(m.group(1), "soon", m.group(3)));
            assertFalse(links.valid(m.group(1), m.group(2), null));
            clock.advance(SignedLinks.LIFETIME.minus(Duration.ofSeconds(1)));
            assertTrue(links.valid(m.group(1), m.group(2), m.group(3)));
            clock.advance(Duration.ofSeconds(1));
            assertFalse(links.valid(m.group(1), m.group(2), m.group(3)), "expired");
        }
    }
}
