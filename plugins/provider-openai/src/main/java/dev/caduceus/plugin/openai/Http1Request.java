package dev.caduceus.plugin.openai;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.SequencedMap;

/**
 * One request for {@link Http1Client}. {@code Host} and {@code Content-Length} are added by the
 * client; {@code headers} holds the rest, in sending order.
 *
 * @param method  {@code GET}, {@code POST}, …
 * @param uri     an absolute {@code http} or {@code https} URI
 * @param headers header names and values (no CR, LF or NUL: {@link IllegalArgumentException})
 * @param body    the body bytes, empty for none
 */
record Http1Request(String method, URI uri, SequencedMap<String, String> headers, byte[] body) {
    Http1Request {
        requireNonNull(method, "method");
        requireNonNull(uri, "uri");
        headers = Collections.unmodifiableSequencedMap(new LinkedHashMap<>(headers));
        headers.forEach(Http1Request::checkField);
        body = body == null ? new byte[0] : body;
    }

    /** A CR or LF would let a value (an API key from a config file, say) inject header lines. */
    private static void checkField(String name, String value) {
        if (name.isEmpty() || name.indexOf(':') >= 0 || !printable(name))
            throw new IllegalArgumentException("Invalid HTTP header name " + (printable(name) ? name : ""));
        if (!printable(value)) throw new IllegalArgumentException("Invalid value for HTTP header " + name);
    }

    private static boolean printable(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\r' || c == '\n' || c == 0 || c > 0xff) return false;
        }
        return true;
    }

    /** A {@code POST} with a body. */
    static Http1Request post(URI uri, SequencedMap<String, String> headers, byte[] body) {
        return new Http1Request("POST", uri, headers, body);
    }
}
