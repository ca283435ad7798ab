package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.http.HttpStatusException;
import dev.caduceus.platform.testkit.FakeExchange;
import org.junit.jupiter.api.Test;

/**
 * Session key values HTTP/1.1 cannot carry to the plugin (a line break ends the header, NUL is
 * refused on the way), checked on the reader itself; the rest is {@link ResponsesValidationTest}'s.
 */
class ResponsesSessionHeadersTest {
    @Test
    void lineBreaksAndNulInTheSessionKeyAreInvalid() {
        for (var value : new String[] {"a\nb", "a\r\nX: y", "a\0b"}) {
            var ex = new FakeExchange(new ObjectMapper(), "POST", ResponsesHost.PATH)
                    .requestHeader(ResponsesSessionHeaders.SESSION_KEY, value);
            var e = assertThrows(HttpStatusException.class, () -> ResponsesSessionHeaders.from(ex));
            assertEquals(400, e.error().status());
            assertEquals("invalid_session_key", e.error().code());
            assertEquals("Invalid session key", e.error().message());
        }
    }
}
