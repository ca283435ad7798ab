package dev.caduceus.plugin.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.caduceus.support.idempotency.IdempotencyCache;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class FingerprintTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void isTheSha256OfTheCanonicalBodyAndSessionKey() throws Exception {
        var body = JSON.readTree("{\"model\":\"m\", \"input\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        var expected = IdempotencyCache.sha256Hex(
                "{\"body\":{\"input\":[{\"content\":\"hi\",\"role\":\"user\"}],\"model\":\"m\"},\"session_key\":\"k\"}");
        assertEquals(expected, Fingerprint.of(body, "k"));
        assertEquals(64, expected.length());
    }

    @Test
    void keyOrderAndWhitespaceDoNotMatterAtAnyDepth() throws Exception {
        var a = JSON.readTree("{\"input\":\"hi\",\"model_options\":{\"reasoning_effort\":\"low\",\"service_tier\":\"flex\"},"
                + "\"conversation_history\":[{\"role\":\"user\",\"content\":\"x\"}]}");
        var b = JSON.readTree("{ \"conversation_history\" : [ {\"content\":\"x\", \"role\":\"user\"} ],"
                + " \"model_options\":{\"service_tier\":\"flex\",\"reasoning_effort\":\"low\"}, \"input\":\"hi\" }");
        assertEquals(Fingerprint.of(a, null), Fingerprint.of(b, null));
    }

    @Test
    void arrayOrderAndValuesDoMatter() throws Exception {
        var a = JSON.readTree("{\"input\":[\"a\",\"b\"]}");
        var b = JSON.readTree("{\"input\":[\"b\",\"a\"]}");
        assertNotEquals(Fingerprint.of(a, null), Fingerprint.of(b, null));
        assertNotEquals(Fingerprint.of(JSON.readTree("{\"input\":\"a\"}"), null), Fingerprint.of(JSON.readTree("{\"input\":\"b\"}"), null));
    }

    @Test
    void theSessionKeyMattersAndAbsentMeansEmpty() throws Exception {
        var body = JSON.readTree("{\"input\":\"hi\"}");
        assertNotEquals(Fingerprint.of(body, "user-1"), Fingerprint.of(body, "user-2"));
        assertNotEquals(Fingerprint.of(body, null), Fingerprint.of(body, "user-1"));
        assertEquals(Fingerprint.of(body, null), Fingerprint.of(body, ""));
    }
}
