package dev.caduceus.platform.host.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The preset that keeps Jetty from starting JMX to learn the size of a reference. */
class JettyCacheLineTest {
    @Test
    void belowThirtyTwoGigabytesReferencesAreFourBytes() {
        assertEquals(16, JettyCacheLine.referencesPerCacheLine(6L << 30));
    }

    @Test
    void fromThirtyTwoGigabytesReferencesAreEightBytes() {
        assertEquals(8, JettyCacheLine.referencesPerCacheLine(32L << 30));
    }

    @Test
    void thePropertyIsSetOnceAServerWasPrepared() {
        // Any earlier test's server already preset it; either way it is a positive number now.
        JettyCacheLine.preset();
        assertTrue(Integer.parseInt(System.getProperty(JettyCacheLine.PROPERTY)) > 0);
    }
}
