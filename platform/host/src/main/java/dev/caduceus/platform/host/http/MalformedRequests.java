package dev.caduceus.platform.host.http;

import dev.caduceus.spi.http.ApiError;
import java.util.List;
import java.util.Locale;

/**
 * Names the 400s that Jetty produces by itself: its HTTP parser and its URI checks reject the request
 * before any handler runs, and say why only in free text ({@code "No Host"}, {@code "Bad EOL"},
 * {@code "Ambiguous URI path separator"}, {@code "Invalid Content-Length Value"}; an overflowing
 * {@code Content-Length} is just the JDK's {@code "long overflow"}). Each kind of fault gets a code
 * a client can act on and a fixed message; Jetty's text is only inspected, never echoed. None of
 * them is {@code invalid_json}: no body was parsed. Pure functions.
 *
 * <p>The texts are Jetty 12.1's ({@code HttpParser}, {@code HttpURI}, {@code HostPort}); a text this
 * table does not know falls back to 400 {@code bad_request}, and the raw-socket tests of each
 * fault say when an upgrade changed one.
 */
final class MalformedRequests {
    /** One row: any of {@code fragments} in Jetty's (lower-cased) reason means {@code error}. */
    private record Rule(List<String> fragments, ApiError error) {
        boolean matches(String reason) {
            return fragments.stream().anyMatch(reason::contains);
        }
    }

    static final ApiError BAD_REQUEST = ApiError.badRequest("bad_request", "Malformed HTTP request.", null);

    private static final List<Rule> RULES = List.of(
            // Both framing headers at once: RFC 9112 §6.3 makes it an error whichever is right.
            rule(error(400, "invalid_transfer_encoding", "Transfer-Encoding and Content-Length must not both be sent."),
                    "transfer-encoding and content-length"),
            rule(ApiErrors.invalidContentLength(), "content-length", "long overflow"),
            // "chunked not last" (gzip alone, identity) and "multiple chunked tokens": RFC 9112 §6.3
            // wants a 400 when chunked is not the one final coding, since the body's end is unknown.
            rule(error(400, "invalid_transfer_encoding",
                    "Invalid Transfer-Encoding: only chunked is supported, once, as the last coding."),
                    "transfer-encoding"),
            rule(error(400, "invalid_host", "Missing Host header."), "no host"),
            rule(error(400, "invalid_host", "Invalid Host header."), "host", "authority"),
            rule(error(400, "invalid_path",
                    "Invalid request path: illegal character, bad percent-encoding or ambiguous segment."),
                    "path", "uri", "utf-8", "!hex", "segment", "separator"),
            rule(error(400, "invalid_header", "Malformed request header: CR without LF."), "bad eol"),
            rule(error(400, "invalid_header", "Malformed request header: line folding is not supported."), "folding"),
            rule(error(400, "invalid_header", "Malformed request line or header: illegal character."),
                    "illegal character"),
            rule(error(400, "invalid_header", "Malformed request header."), "header", "field", "colon"));

    private MalformedRequests() {}

    /** The contract error for a 400 Jetty produced, from its {@code reason} text (may be null). */
    static ApiError classify(String reason) {
        if (reason == null || reason.isBlank()) return BAD_REQUEST;
        var text = reason.toLowerCase(Locale.ROOT);
        for (var rule : RULES) if (rule.matches(text)) return rule.error();
        return BAD_REQUEST;
    }

    private static Rule rule(ApiError error, String... fragments) {
        return new Rule(List.of(fragments), error);
    }

    private static ApiError error(int status, String code, String message) {
        return new ApiError(status, message, ApiError.INVALID_REQUEST, null, code);
    }
}
