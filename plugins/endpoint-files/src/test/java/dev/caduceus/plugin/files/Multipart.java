package dev.caduceus.plugin.files;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** A {@code multipart/form-data} body built by hand, as a client sends one (and as a broken client might). */
final class Multipart {
    static final String BOUNDARY = "----caduceus-test-7MA4YWxkTrZu0gW";
    private final List<byte[]> parts = new ArrayList<>();

    Multipart field(String name, String value) {
        parts.add(("Content-Disposition: form-data; name=\"" + name + "\"\r\n\r\n" + value).getBytes(StandardCharsets.UTF_8));
        return this;
    }

    Multipart file(String name, String filename, byte[] content) {
        var head = ("Content-Disposition: form-data; name=\"" + name + "\"; filename=\"" + filename
                + "\"\r\nContent-Type: text/html\r\n\r\n").getBytes(StandardCharsets.UTF_8);
        var out = new ByteArrayOutputStream();
        out.writeBytes(head);
        out.writeBytes(content);
        parts.add(out.toByteArray());
        return this;
    }

    byte[] bytes() {
        var out = new ByteArrayOutputStream();
        for (var part : parts) {
            out.writeBytes(("--" + BOUNDARY + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.writeBytes(part);
            out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        out.writeBytes(("--" + BOUNDARY + "--\r\n").getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
    }

    static String contentType() {
        return "multipart/form-data; boundary=" + BOUNDARY;
    }
}
