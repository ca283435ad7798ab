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
 * @param headers header names and values (no CR or LF)
 * @param body    the body bytes, empty for none
 */
record Http1Request(String method, URI uri, SequencedMap<String, String> headers, byte[] body) {
    Http1Request {
        requireNonNull(method, "method");
        requireNonNull(uri, "uri");
        headers = Collections.unmodifiableSequencedMap(new LinkedHashMap<>(headers));
        body = body == null ? new byte[0] : body;
    }

    /** A {@code POST} with a body. */
    static Http1Request post(URI uri, SequencedMap<String, String> headers, byte[] body) {
        return new Http1Request("POST", uri, headers, body);
    }
}
