package dev.caduceus.plugin.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.http.HttpStatusException;
import dev.caduceus.platform.testkit.FakeExchange;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Session header values that HTTP/1.1 cannot carry to the plugin (a line break ends the header, NUL
 * and non-ASCII are refused on the way), checked on the reader itself: another transport or a relay
 * could still hand them over. Everything HTTP can carry is {@link ChatValidationTest}'s, on the real host.
 */
class SessionHeadersTest {
    private static String code(String header, String value) {
        var ex = new FakeExchange(new ObjectMapper(), "POST", ChatHost.PATH).requestHeader(header, value);
        var e = assertThrows(HttpStatusException.class, () -> SessionHeaders.from(ex));
        assertEquals(400, e.error().status());
        return e.error().code();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"X-Hermes-Session-Id|invalid_session_id", "X-Hermes-Session-Key|invalid_session_key"})
    void lineBreaksAndNulAreInvalid(String header, String expected) {
        assertEquals(expected, code(header, "abc\r\nX: y"));
        assertEquals(expected, code(header, "a\nb"));
        assertEquals(expected, code(header, "a\0b"));
    }

    @ParameterizedTest
    @CsvSource({"é", "id\u00A0x"})
    void nonAsciiSessionIdsAreInvalid(String id) {
        assertEquals("invalid_session_id", code("X-Hermes-Session-Id", id));
    }
}
