package dev.caduceus.plugin.web;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

/**
 * The size rule of {@code web_extract}: text up to {@code max_chars} is returned whole; longer text keeps a
 * head (75 %) and a tail (25 %) around a marker naming the file under
 * {@code <workspace>/.caduceus/web/} where the full text is saved. Immutable; thread-safe.
 */
final class TextWindow {
    private final int maxChars;

    TextWindow(int maxChars) {
        this.maxChars = maxChars;
    }

    /** {@code text}, or its head and tail with the marker after saving the whole text in {@code workspace}. */
    String apply(String text, URI url, Path workspace) throws IOException {
        if (text.length() <= maxChars) return text;
        var file = savedFile(url, workspace);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text, StandardCharsets.UTF_8);
        int head = maxChars * 3 / 4;
        int tail = maxChars - head;
        int omitted = text.length() - head - tail;
        return text.substring(0, head)
                + "\n\n[... " + omitted + " chars omitted; full text saved to " + file
                + " — read it with read_file using offset/limit ...]\n\n"
                + text.substring(text.length() - tail);
    }

    /** {@code <workspace>/.caduceus/web/<host>-<hash8>.md}, absolute. */
    static Path savedFile(URI url, Path workspace) {
        var host = host(url).replaceAll("[^a-z0-9.-]", "_");
        return workspace.toAbsolutePath().normalize().resolve(".caduceus").resolve("web")
                .resolve((host.isEmpty() ? "page" : host) + "-" + hash8(url.toString()) + ".md");
    }

    /** The lower-cased host without IPv6 brackets or a trailing dot; empty when absent. */
    private static String host(URI url) {
        var host = url.getHost();
        if (host == null) return "";
        host = host.toLowerCase(Locale.ROOT);
        if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
        while (host.endsWith(".")) host = host.substring(0, host.length() - 1);
        return host;
    }

    private static String hash8(String s) {
        try {
            var digest = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest).substring(0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always available", e);
        }
    }
}
