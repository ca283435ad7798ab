package dev.caduceus.platform.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class ProfileOptionTest {

    @Test
    void everySpellingBeforeTheCommandIsTakenOff() {
        for (var args : new String[][] {{"-p", "alice", "serve", "--port", "1"}, {"-palice", "serve", "--port", "1"},
                {"--profile", "alice", "serve", "--port", "1"}, {"--profile=alice", "serve", "--port", "1"}}) {
            var taken = ProfileOption.take(args);
            assertNull(taken.error());
            assertEquals(Optional.of("alice"), taken.profile());
            assertArrayEquals(new String[] {"serve", "--port", "1"}, taken.rest());
        }
    }

    @Test
    void afterTheCommandItIsTheCommandsBusiness() {
        var taken = ProfileOption.take(new String[] {"batch", "-p", "x"});
        assertEquals(Optional.empty(), taken.profile());
        assertArrayEquals(new String[] {"batch", "-p", "x"}, taken.rest());
        assertEquals(Optional.empty(), ProfileOption.take(new String[0]).profile());
    }

    @Test
    void aMissingOrRepeatedNameIsAnError() {
        assertNotNull(ProfileOption.take(new String[] {"-p"}).error());
        assertNotNull(ProfileOption.take(new String[] {"-p", "--port", "1"}).error());
        assertNotNull(ProfileOption.take(new String[] {"-p", "a", "--profile=b", "serve"}).error());
    }
}
