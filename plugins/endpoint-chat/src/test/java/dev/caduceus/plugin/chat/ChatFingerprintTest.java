package dev.caduceus.plugin.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.support.idempotency.IdempotencyCache;
import org.junit.jupiter.api.Test;

/** The chat fingerprint covers the chat fields that make a request the same one and ignores the rest. */
class ChatFingerprintTest {
    private static String fp(JsonNode body) {
        return IdempotencyCache.fingerprint(body, ChatHandler.FINGERPRINT_FIELDS, null, null);
    }

    @Test
    void chatFieldsCountOthersDoNot() throws Exception {
        var json = new ObjectMapper();
        var a = json.readTree("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"model\":\"m\",\"temperature\":1}");
        var other = json.readTree("{\"model\":\"m\",\"messages\":[{\"content\":\"hi\",\"role\":\"user\"}],\"user\":\"u\"}");
        assertEquals(fp(a), fp(other));
        for (var field : new String[] {"provider", "model_options", "tools", "tool_choice", "parallel_tool_calls",
                "response_format", "stream"}) {
            var changed = json.readTree("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"model\":\"m\",\""
                    + field + "\":\"x\"}");
            assertNotEquals(fp(a), fp(changed), field);
        }
    }
}
