package dev.caduceus.plugin.console;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The app's files, read from this jar's {@code dev/caduceus/plugin/console/app/} on first request
 * and kept (they never change while the jar is loaded). A name is one path segment of lower-case
 * letters, digits, {@code -}, {@code _} and dots with a known extension; anything else, including
 * every form of {@code ..}, is simply not found. Only files that exist are cached, so the cache is
 * bounded by the app's size. Thread-safe.
 */
final class ConsoleFiles {
    static final String FOLDER = "dev/caduceus/plugin/console/app/";
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_-]*(\\.[a-z0-9]+)+");
    private static final Map<String, String> TYPES = Map.of(
            "html", "text/html; charset=utf-8",
            "js", "text/javascript; charset=utf-8",
            "css", "text/css; charset=utf-8",
            "svg", "image/svg+xml",
            "png", "image/png",
            "ico", "image/x-icon",
            "json", "application/json; charset=utf-8",
            "txt", "text/plain; charset=utf-8");

    /** One file: its bytes, content type and strong entity tag. */
    record File(byte[] bytes, String contentType, String etag) {
        File {
            requireNonNull(bytes, "bytes");
            requireNonNull(contentType, "contentType");
            requireNonNull(etag, "etag");
        }

        /** Whether an {@code If-None-Match} value names this version ({@code *}, or a list containing its tag). */
        boolean matches(String ifNoneMatch) {
            return Arrays.stream(ifNoneMatch.split(",")).map(String::strip)
                    .anyMatch(tag -> tag.equals("*") || tag.equals(etag) || tag.equals("W/" + etag));
        }
    }

    private final ClassLoader loader;
    private final Map<String, File> cache = new ConcurrentHashMap<>();

    ConsoleFiles(ClassLoader loader) {
        this.loader = requireNonNull(loader, "loader");
    }

    /** The file named {@code name}, if the app has it. */
    Optional<File> find(String name) {
        if (name == null || name.length() > 100 || !NAME.matcher(name).matches()) return Optional.empty();
        var type = TYPES.get(name.substring(name.lastIndexOf('.') + 1));
        if (type == null) return Optional.empty();
        var cached = cache.get(name);
        if (cached != null) return Optional.of(cached);
        try (var in = loader.getResourceAsStream(FOLDER + name)) {
            if (in == null) return Optional.empty();
            var bytes = in.readAllBytes();
            var file = new File(bytes, type, etag(bytes));
            var previous = cache.putIfAbsent(name, file);
            return Optional.of(previous == null ? file : previous);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the console's " + name, e);
        }
    }

    private static String etag(byte[] bytes) {
        try {
            var digest = MessageDigest.getInstance("SHA-256").digest(bytes);
            return '"' + HexFormat.of().formatHex(digest, 0, 12) + '"';
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always there", e);
        }
    }
}
