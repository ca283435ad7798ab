package dev.caduceus.platform.runtime.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {
    @Test
    void retryAfterWinsOverTheBackoffAndIsCappedAt120Seconds() {
        var policy = RetryPolicy.DEFAULT;
        assertEquals(Duration.ofSeconds(2), policy.wait(0, Optional.empty()));
        assertEquals(Duration.ofSeconds(8), policy.wait(2, Optional.empty()));
        assertEquals(Duration.ofSeconds(7), policy.wait(0, Optional.of(Duration.ofSeconds(7))));
        assertEquals(Duration.ofSeconds(120), policy.wait(1, Optional.of(Duration.ofSeconds(900))));
    }
}
