package dev.caduceus.platform.testkit;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Reads an HTTP/1.1 response off the wire for {@link HostClient#raw}: status, headers, body (chunked or not). */
final class RawResponse {
    private RawResponse() {}

    static HostClient.Response parse(byte[] wire) {
        var text = new String(wire, StandardCharsets.ISO_8859_1);
        int split = text.indexOf("\r\n\r\n");
        if (split < 0) throw new IllegalStateException("no complete response head: " + text);
        var lines = text.substring(0, split).split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        var headers = new TreeMap<String, List<String>>(String.CASE_INSENSITIVE_ORDER);
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.computeIfAbsent(lines[i].substring(0, colon).trim(), k -> new ArrayList<>())
                    .add(lines[i].substring(colon + 1).trim());
        }
        var rest = text.substring(split + 4);
        var chunked = headers.getOrDefault("Transfer-Encoding", List.of()).stream().anyMatch("chunked"::equalsIgnoreCase);
        var body = chunked ? dechunk(rest) : rest.getBytes(StandardCharsets.ISO_8859_1);
        return new HostClient.Response(status, HttpHeaders.of(Map.copyOf(headers), (a, b) -> true),
                new String(body, StandardCharsets.UTF_8));
    }

    private static byte[] dechunk(String rest) {
        var out = new ByteArrayOutputStream();
        int at = 0;
        while (true) {
            int eol = rest.indexOf("\r\n", at);
            int size = Integer.parseInt(rest.substring(at, eol).split(";")[0].trim(), 16);
            if (size == 0) return out.toByteArray();
            out.writeBytes(rest.substring(eol + 2, eol + 2 + size).getBytes(StandardCharsets.ISO_8859_1));
            at = eol + 2 + size + 2;
        }
    }
}
