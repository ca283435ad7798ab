package dev.caduceus.plugin.openai;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

class RequestBodiesTest {
    private final ObjectMapper json = new ObjectMapper();
    private final RequestBodies bodies = new RequestBodies();

    @Test
    void aBodyIsItsExactJsonWhateverTheBufferHeldBefore() throws Exception {
        var big = json.createObjectNode().put("text", "x".repeat(300 * 1024)); // past the kept size: grown, then dropped
        var small = json.createObjectNode().put("model", "m").put("stream", false);
        var medium = json.createObjectNode().put("text", "é".repeat(20_000)); // grows the pooled buffer
        for (var body : java.util.List.of(small, big, medium, small, medium, small))
            assertEquals(json.writeValueAsString(body), new String(bodies.write(json, body), java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void concurrentCallsEachGetTheirOwnBody() throws Exception {
        try (var pool = Executors.newFixedThreadPool(8)) {
            var calls = new ArrayList<Callable<Boolean>>();
            for (int i = 0; i < 400; i++) {
                var body = json.createObjectNode().put("n", i).put("pad", "p".repeat(i * 97));
                calls.add(() -> json.writeValueAsString(body).equals(
                        new String(bodies.write(json, body), java.nio.charset.StandardCharsets.UTF_8)));
            }
            for (var done : pool.invokeAll(calls)) assertEquals(true, done.get());
        }
    }
}
