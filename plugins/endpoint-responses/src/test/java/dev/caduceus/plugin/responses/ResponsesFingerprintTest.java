package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.support.idempotency.IdempotencyCache;
import org.junit.jupiter.api.Test;

/** The Responses fingerprint covers the Responses fields that make a request the same one and ignores the rest. */
class ResponsesFingerprintTest {
    private static String fp(JsonNode body) {
        return IdempotencyCache.fingerprint(body, CreateHandler.FINGERPRINT_FIELDS, null, null);
    }

    @Test
    void responsesFieldsCountOthersDoNot() throws Exception {
        var json = new ObjectMapper();
        var a = json.readTree("{\"input\":\"hi\",\"model\":\"m\",\"temperature\":1}");
        var other = json.readTree("{\"input\":\"hi\",\"model\":\"m\",\"top_p\":0.5,\"metadata\":{}}");
        assertEquals(fp(a), fp(other));
        for (var field : new String[] {"instructions", "previous_response_id", "conversation", "provider", "tools",
                "tool_choice", "parallel_tool_calls"}) {
            var changed = json.readTree("{\"input\":\"hi\",\"model\":\"m\",\"" + field + "\":\"x\"}");
            assertNotEquals(fp(a), fp(changed), field);
        }
    }
}
