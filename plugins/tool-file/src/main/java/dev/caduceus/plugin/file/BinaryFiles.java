package dev.caduceus.plugin.file;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * Recognises binary files (which {@code read_file} refuses): a NUL byte in the first 8 KiB, or a known binary
 * extension. Stateless.
 */
final class BinaryFiles {
    static final int SNIFF_BYTES = 8192;
    private static final Map<String, String> KNOWN = Map.ofEntries(
            Map.entry("png", "image/png"), Map.entry("jpg", "image/jpeg"), Map.entry("jpeg", "image/jpeg"),
            Map.entry("gif", "image/gif"), Map.entry("webp", "image/webp"), Map.entry("bmp", "image/bmp"),
            Map.entry("ico", "image/x-icon"), Map.entry("tif", "image/tiff"), Map.entry("tiff", "image/tiff"),
            Map.entry("pdf", "application/pdf"), Map.entry("zip", "application/zip"),
            Map.entry("gz", "application/gzip"), Map.entry("tgz", "application/gzip"),
            Map.entry("bz2", "application/x-bzip2"), Map.entry("xz", "application/x-xz"),
            Map.entry("7z", "application/x-7z-compressed"), Map.entry("tar", "application/x-tar"),
            Map.entry("jar", "application/java-archive"), Map.entry("class", "application/java-vm"),
            Map.entry("exe", "application/x-msdownload"), Map.entry("dll", "application/x-msdownload"),
            Map.entry("so", "application/x-sharedlib"), Map.entry("o", "application/x-object"),
            Map.entry("a", "application/x-archive"), Map.entry("bin", "application/octet-stream"),
            Map.entry("pyc", "application/x-python-code"), Map.entry("wasm", "application/wasm"),
            Map.entry("mp3", "audio/mpeg"), Map.entry("wav", "audio/wav"), Map.entry("ogg", "audio/ogg"),
            Map.entry("flac", "audio/flac"), Map.entry("mp4", "video/mp4"), Map.entry("mov", "video/quicktime"),
            Map.entry("avi", "video/x-msvideo"), Map.entry("webm", "video/webm"), Map.entry("mkv", "video/x-matroska"),
            Map.entry("woff", "font/woff"), Map.entry("woff2", "font/woff2"), Map.entry("ttf", "font/ttf"),
            Map.entry("otf", "font/otf"), Map.entry("sqlite", "application/vnd.sqlite3"),
            Map.entry("db", "application/vnd.sqlite3"), Map.entry("docx",
                    "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
            Map.entry("xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"));

    private BinaryFiles() {}

    /** The file's MIME type when it is binary, else null. */
    static String binaryMime(Path file) throws IOException {
        var known = KNOWN.get(extension(file));
        if (known != null) return known;
        return hasNul(file) ? "application/octet-stream" : null;
    }

    private static boolean hasNul(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] head = in.readNBytes(SNIFF_BYTES);
            for (byte b : head) if (b == 0) return true;
            return false;
        }
    }

    private static String extension(Path file) {
        var name = file.getFileName() == null ? "" : file.getFileName().toString();
        int dot = name.lastIndexOf('.');
        return dot < 0 ? "" : name.substring(dot + 1).toLowerCase(Locale.ROOT);
    }
}
