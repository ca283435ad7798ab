package dev.caduceus.plugin.openai;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

/**
 * Encodes a request as one byte array (request line, header fields, body), so it leaves in one
 * write: one system call and, for a small request, one TCP segment.
 */
final class RequestEncoder {
    private RequestEncoder() {}

    static byte[] encode(Http1Request request, Origin origin) {
        var uri = request.uri();
        var target = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        if (uri.getRawQuery() != null) target += "?" + uri.getRawQuery();
        var head = new StringBuilder(256).append(request.method()).append(' ').append(target).append(" HTTP/1.1\r\n");
        field(head, "Host", origin.authority());
        for (var header : request.headers().entrySet()) field(head, header.getKey(), header.getValue());
        byte[] body = request.body();
        if (body.length > 0 || request.method().equals("POST") || request.method().equals("PUT"))
            field(head, "Content-Length", Integer.toString(body.length));
        head.append("\r\n");
        byte[] headBytes = head.toString().getBytes(ISO_8859_1);
        byte[] message = new byte[headBytes.length + body.length];
        System.arraycopy(headBytes, 0, message, 0, headBytes.length);
        System.arraycopy(body, 0, message, headBytes.length, body.length);
        return message;
    }

    private static void field(StringBuilder head, String name, String value) {
        head.append(name).append(": ").append(value).append("\r\n"); // checked by Http1Request
    }
}
