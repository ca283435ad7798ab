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
        var big = json.createObjectNode().put("text", "x".repeat(100 * 1024)); // past the kept size: grown, then dropped
        var small = json.createObjectNode().put("model", "m").put("stream", false);
        var medium = json.createObjectNode().put("text", "é".repeat(20_000)); // grows the pooled buffer
        for (var body : java.util.List.of(small, big, medium, small, medium, small))
            try (var encoded = bodies.write(json, tree(body))) {
                assertEquals(json.writeValueAsString(body), text(encoded));
            }
    }

    @Test
    void aBufferIsNotReusedWhileItsBodyIsHeld() throws Exception {
        var first = bodies.write(json, tree(json.createObjectNode().put("call", "first")));
        try (var second = bodies.write(json, tree(json.createObjectNode().put("call", "second")))) {
            assertEquals("{\"call\":\"first\"}", text(first), "the second call encoded elsewhere");
            assertEquals("{\"call\":\"second\"}", text(second));
        }
        first.close();
        first.close(); // once only: a second close does not give the buffer back twice
        try (var a = bodies.write(json, tree(json.createObjectNode().put("n", 1)));
             var b = bodies.write(json, tree(json.createObjectNode().put("n", 2)))) {
            assertEquals("{\"n\":1}", text(a));
            assertEquals("{\"n\":2}", text(b));
        }
    }

    private static RequestBodies.Body tree(com.fasterxml.jackson.databind.JsonNode node) {
        return g -> g.writeTree(node);
    }

    private static String text(RequestBodies.Encoded encoded) {
        var bytes = encoded.bytes().duplicate();
        var out = new byte[bytes.remaining()];
        bytes.get(out);
        return new String(out, java.nio.charset.StandardCharsets.UTF_8);
    }

    @Test
    void concurrentCallsEachGetTheirOwnBody() throws Exception {
        try (var pool = Executors.newFixedThreadPool(8)) {
            var calls = new ArrayList<Callable<Boolean>>();
            for (int i = 0; i < 400; i++) {
                var body = json.createObjectNode().put("n", i).put("pad", "p".repeat(i * 97));
                calls.add(() -> {
                    try (var encoded = bodies.write(json, tree(body))) {
                        return json.writeValueAsString(body).equals(text(encoded));
                    }
                });
            }
            for (var done : pool.invokeAll(calls)) assertEquals(true, done.get());
        }
    }
}
