package dev.caduceus.platform.host.logging;

import static dev.caduceus.platform.host.logging.Events.event;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.event.KeyValuePair;

class TextLayoutTest {
    private final TextLayout layout = new TextLayout(ZoneOffset.UTC);

    @Test
    void timeLevelThreadShortLoggerNameAndMessageOnOneLine() {
        assertEquals("21:58:09.123 INFO [main] Platform - Caduceus stopped\n", layout.doLayout(event("Caduceus stopped")));
    }

    @Test
    void inTheJvmsZoneByDefault() {
        var local = new TextLayout(ZoneOffset.ofHours(2)).doLayout(event("x"));
        assertTrue(local.startsWith("23:58:09.123 "), local);
    }

    @Test
    void theRequestAndRunIdsFollowTheMessageOnlyWhenPresent() {
        var both = event("dev.caduceus.platform.host.http.DispatchHandler", Level.WARN, "slow", null,
                Map.of("run_id", "run_1", "request_id", "req_9", "other", "not printed"));
        assertEquals("21:58:09.123 WARN [main] DispatchHandler - slow [request_id=req_9 run_id=run_1]\n", layout.doLayout(both));
        var run = event("a.B", Level.DEBUG, "turn", null, Map.of("run_id", "run_1"));
        assertEquals("21:58:09.123 DEBUG [main] B - turn [run_id=run_1]\n", layout.doLayout(run));
    }

    @Test
    void keyValuePairsAreNotPrintedTheMessageCarriesItsOwnText() {
        var line = layout.doLayout(event("dev.caduceus.requests", Level.INFO, "GET /v1/runs/run_1 200 3 ms", null, Map.of(),
                new KeyValuePair("status", 200)));
        assertEquals("21:58:09.123 INFO [main] requests - GET /v1/runs/run_1 200 3 ms\n", line);
    }

    @Test
    void theStackTraceFollowsOnTheNextLines() {
        var error = new IllegalStateException("boom", new java.io.IOException("disk"));
        var text = layout.doLayout(event("x.Y", Level.ERROR, "failed", error, Map.of()));
        var lines = text.split("\n");
        assertEquals("21:58:09.123 ERROR [main] Y - failed", lines[0]);
        assertEquals("java.lang.IllegalStateException: boom", lines[1]);
        assertTrue(lines[2].startsWith("\tat dev.caduceus.platform.host.logging.TextLayoutTest."), lines[2]);
        assertTrue(text.contains("Caused by: java.io.IOException: disk"), text);
        assertTrue(text.endsWith("\n") && !text.endsWith("\n\n"), text);
    }

    @Test
    void aNameWithoutDotsIsItsOwnShortName() {
        assertEquals("ROOT", TextLayout.shortName("ROOT"));
        assertEquals("Platform", TextLayout.shortName("dev.caduceus.platform.server.Platform"));
    }
}
