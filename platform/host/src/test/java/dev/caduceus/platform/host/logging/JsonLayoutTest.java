package dev.caduceus.platform.host.logging;

import static dev.caduceus.platform.host.logging.Events.event;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.event.KeyValuePair;

class JsonLayoutTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final JsonLayout layout = new JsonLayout();

    private JsonNode parse(String line) throws Exception {
        assertTrue(line.endsWith("\n"), line);
        assertEquals(1, line.split("\n", -1).length - 1, "exactly one line: " + line);
        return JSON.readTree(line);
    }

    @Test
    void theFieldsInOrderWithUtcTimeToTheMillisecond() throws Exception {
        var line = layout.doLayout(event("Listening"));
        assertEquals("{\"time\":\"2026-12-01T21:58:09.123Z\",\"level\":\"INFO\",\"logger\":\"dev.caduceus.platform.server.Platform\","
                + "\"thread\":\"main\",\"message\":\"Listening\"}\n", line);
    }

    @Test
    void quotesBackslashesControlCharactersAndNewlinesAreEscapedSoTheEventStaysOneLine() throws Exception {
        var message = "say \"hi\"\\ then\nnext line\r\tand \u0001 and ünïcode €";
        var node = parse(layout.doLayout(event(message)));
        assertEquals(message, node.path("message").asText());
    }

    @Test
    void theMdcIdsAndEveryKeyValuePairAreFieldsNumbersAsNumbers() throws Exception {
        var line = layout.doLayout(event("dev.caduceus.requests", Level.INFO, "GET /v1/runs/run_1 200", null,
                Map.of("request_id", "req_9", "run_id", "run_1", "other", "x"),
                new KeyValuePair("status", 200), new KeyValuePair("bytes", 12_345_678_901L),
                new KeyValuePair("duration_ms", 3.5), new KeyValuePair("cost", new BigDecimal("0.10")),
                new KeyValuePair("cached", true), new KeyValuePair("key_name", "ci"),
                new KeyValuePair("route", List.of("a", "b")), new KeyValuePair("nothing", null),
                new KeyValuePair("level", "mine"), new KeyValuePair("status", 201)));
        var node = parse(line);
        assertEquals("req_9", node.path("request_id").asText());
        assertEquals("run_1", node.path("run_id").asText());
        assertFalse(node.has("other"), "only the documented MDC keys");
        assertTrue(node.path("status").isInt(), line);
        assertEquals(201, node.path("status").asInt(), "a key given twice: the last value");
        assertEquals(12_345_678_901L, node.path("bytes").asLong());
        assertTrue(node.path("bytes").isIntegralNumber(), line);
        assertEquals(3.5, node.path("duration_ms").asDouble());
        assertTrue(node.path("cost").isNumber(), line);
        assertTrue(node.path("cached").isBoolean(), line);
        assertEquals("ci", node.path("key_name").asText());
        assertEquals("[a, b]", node.path("route").asText());
        assertTrue(node.path("nothing").isNull(), line);
        assertEquals("INFO", node.path("level").asText(), "a pair cannot replace a field of the format");
        assertEquals("mine", node.path("kv_level").asText());
    }

    @Test
    void notANumberIsAStringSoStrictParsersReadTheLine() throws Exception {
        var line = layout.doLayout(event("a", Level.INFO, "m", null, Map.of(), new KeyValuePair("ratio", Double.NaN)));
        assertEquals("NaN", parse(line).path("ratio").asText());
    }

    @Test
    void anExceptionIsOneStringFieldWithClassMessageAndStack() throws Exception {
        var error = new IllegalStateException("boom\nsecond line", new java.io.IOException("disk"));
        var node = parse(layout.doLayout(event("x.Y", Level.ERROR, "failed", error, Map.of())));
        var text = node.path("error").asText();
        assertTrue(text.startsWith("java.lang.IllegalStateException: boom\nsecond line\n\tat "), text);
        assertTrue(text.contains("Caused by: java.io.IOException: disk"), text);
        assertEquals("failed", node.path("message").asText());
        assertFalse(parse(layout.doLayout(event("fine"))).has("error"));
    }
}
