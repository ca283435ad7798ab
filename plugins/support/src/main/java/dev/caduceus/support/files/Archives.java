package dev.caduceus.support.files;

import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;
import java.util.zip.ZipInputStream;

/**
 * Archive bombs refused before an archive reaches a key's files or the agent's workspace: a zip, a tar or a gzip
 * (a {@code .tar.gz} too) is read through once, never unpacked to disk, and refused when an entry's name would land
 * outside the directory it is unpacked in (absolute, a drive, a {@code ..} segment, control characters, longer
 * than 4,096 bytes), when a tar holds a device, a pipe, or a link whose target is absolute or climbs out, or when it
 * unpacks to more than {@value #MAX_ENTRIES} entries, more than {@link #MAX_UNPACKED_BYTES} bytes, or more than
 * {@value #MAX_RATIO} times its packed size once past {@link #RATIO_FLOOR} bytes. Reading stops at the first
 * refusal, so a bomb costs at most what its limits allow. Archives inside archives are not opened; bzip2, xz and 7z
 * are not looked into (stored as they are). Stateless.
 */
public final class Archives {
    public static final long MAX_UNPACKED_BYTES = 4L * 1024 * 1024 * 1024;
    public static final int MAX_ENTRIES = 100_000;
    public static final int MAX_RATIO = 100;
    public static final long RATIO_FLOOR = 64L * 1024 * 1024;
    static final int MAX_NAME_BYTES = 4096;
    static final String TAR = "application/x-tar";

    private Archives() {}

    /** What the reading found. Immutable. */
    public sealed interface Verdict {
        /** Not an archive this class looks into: nothing was read. */
        record NotAnArchive() implements Verdict {}

        /** Read through: {@code entries} files and directories, {@code unpackedBytes} bytes in all. */
        record Safe(int entries, long unpackedBytes) implements Verdict {}

        /** Refused, with why, naming the entry where there is one. */
        record Unsafe(String reason) implements Verdict {}
    }

    /** Whether {@code contentType} ({@link ContentSniffer}) is one {@link #inspect} reads. */
    public static boolean inspected(String contentType) {
        return contentType.equals("application/zip") || contentType.equals("application/gzip") || contentType.equals(TAR);
    }

    /** Reads archive {@code in} of sniffed type {@code contentType} through (does not close it). */
    public static Verdict inspect(String contentType, InputStream in) throws IOException {
        var packed = new Counting(in);
        try {
            return switch (contentType) {
                case "application/zip" -> zip(packed);
                case "application/gzip" -> gzip(packed);
                case TAR -> tar(packed, null);
                default -> new Verdict.NotAnArchive();
            };
        } catch (Refused r) {
            return new Verdict.Unsafe(r.getMessage());
        } catch (ZipException | EOFException | IllegalArgumentException e) { // IllegalArgument: a name not in UTF-8
            return new Verdict.Unsafe("it cannot be read as " + contentType + " (" + e.getMessage() + ")");
        }
    }

    /** The tally of one reading; throws {@link Refused} past a limit. */
    private static final class Tally {
        final Counting packed;
        int entries;
        long unpacked;

        Tally(Counting packed) {
            this.packed = packed;
        }

        void entry(String name) {
            var reason = unsafeName(name);
            if (reason != null) throw new Refused("entry '" + printable(name) + "' " + reason);
            if (++entries > MAX_ENTRIES) throw new Refused("it holds more than " + MAX_ENTRIES + " entries");
        }

        void bytes(long n) {
            unpacked += n;
            if (unpacked > MAX_UNPACKED_BYTES)
                throw new Refused("it unpacks to more than " + MAX_UNPACKED_BYTES + " bytes");
            if (packed != null && unpacked > RATIO_FLOOR && unpacked > MAX_RATIO * Math.max(1, packed.count))
                throw new Refused("it unpacks to more than " + MAX_RATIO + " times its size");
        }

        Verdict.Safe verdict() {
            return new Verdict.Safe(entries, unpacked);
        }
    }

    private static Verdict zip(Counting packed) throws IOException {
        var tally = new Tally(packed);
        var zip = new ZipInputStream(packed, StandardCharsets.UTF_8);
        var buffer = new byte[64 * 1024];
        for (var entry = zip.getNextEntry(); entry != null; entry = zip.getNextEntry()) {
            tally.entry(entry.getName());
            for (int n; (n = zip.read(buffer)) > 0; ) tally.bytes(n);
        }
        if (tally.entries == 0) throw new Refused("it cannot be read as a zip (no entry found)");
        return tally.verdict();
    }

    private static Verdict gzip(Counting packed) throws IOException {
        var unzipped = new GZIPInputStream(packed, 64 * 1024);
        var head = unzipped.readNBytes(512);
        var rest = new SequenceInputStream(new ByteArrayInputStream(head), unzipped);
        var tally = new Tally(packed);
        if (head.length == 512 && isTar(head)) return tar(rest, tally);
        var buffer = new byte[64 * 1024];
        for (int n; (n = rest.read(buffer)) > 0; ) tally.bytes(n);
        return tally.verdict(); // one compressed file: its size and ratio
    }

    /** A POSIX tar's header: "ustar" at offset 257. */
    public static boolean isTar(byte[] head) {
        return head.length >= 263 && head[257] == 'u' && head[258] == 's' && head[259] == 't' && head[260] == 'a'
                && head[261] == 'r';
    }

    /** A tar's headers (ustar, GNU long names, pax), its data skipped; {@code outer}: the gzip's tally, or null. */
    private static Verdict tar(InputStream in, Tally outer) throws IOException {
        var tally = outer != null ? outer : new Tally(null);
        String longName = null, longLink = null, paxPath = null, paxLink = null;
        Long paxSize = null;
        var block = new byte[512];
        while (true) {
            int read = in.readNBytes(block, 0, 512);
            if (read == 0) break;
            if (read < 512) throw new EOFException("a tar header is cut short");
            if (allZero(block)) break;
            long size = paxSize != null ? paxSize : number(block, 124, 12);
            char type = (char) block[156];
            switch (type) {
                case 'L', 'K' -> {
                    if (size > MAX_NAME_BYTES) throw new Refused("a long name of " + size + " bytes");
                    var text = cString(data(in, size), 0, (int) size);
                    if (type == 'L') longName = text; else longLink = text;
                    continue;
                }
                case 'x', 'g' -> {
                    if (size > 1024 * 1024) throw new Refused("a pax header of " + size + " bytes");
                    var records = new String(data(in, size), StandardCharsets.UTF_8);
                    if (type == 'x') {
                        for (var record : records.split("\n")) {
                            int space = record.indexOf(' '), equals = record.indexOf('=');
                            if (space < 0 || equals < space) continue;
                            var key = record.substring(space + 1, equals);
                            var value = record.substring(equals + 1);
                            switch (key) {
                                case "path" -> paxPath = value;
                                case "linkpath" -> paxLink = value;
                                case "size" -> paxSize = Long.parseLong(value.strip());
                                default -> { }
                            }
                        }
                    }
                    continue;
                }
                default -> { }
            }
            var name = paxPath != null ? paxPath : longName != null ? longName : headerName(block);
            var link = paxLink != null ? paxLink : longLink != null ? longLink : cString(block, 157, 100);
            longName = longLink = paxPath = paxLink = null;
            paxSize = null;
            tally.entry(name);
            switch (type) {
                case '3', '4', '6' -> throw new Refused("entry '" + printable(name) + "' is a device or a pipe");
                case '1', '2' -> {
                    var reason = unsafeName(link);
                    if (reason != null || link.isEmpty())
                        throw new Refused("link '" + printable(name) + "' points to '" + printable(link) + "', outside");
                }
                default -> { }
            }
            if (size < 0) throw new Refused("entry '" + printable(name) + "' has a negative size");
            skip(in, size, tally);
        }
        return tally.verdict();
    }

    private static String headerName(byte[] block) {
        var name = cString(block, 0, 100);
        if (!isTar(block)) return name;
        var prefix = cString(block, 345, 155);
        return prefix.isEmpty() ? name : prefix + "/" + name;
    }

    /** An entry's data, counted as unpacked bytes, and its padding to 512. */
    private static void skip(InputStream in, long size, Tally tally) throws IOException {
        var buffer = new byte[64 * 1024];
        long left = size + (512 - size % 512) % 512;
        long data = size;
        while (left > 0) {
            int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
            if (n < 0) throw new EOFException("an entry's data is cut short");
            left -= n;
            long counted = Math.min(n, data);
            data -= counted;
            if (counted > 0) tally.bytes(counted);
        }
    }

    private static byte[] data(InputStream in, long size) throws IOException {
        var bytes = in.readNBytes((int) size);
        if (bytes.length < size) throw new EOFException("a tar header's data is cut short");
        in.skipNBytes((512 - size % 512) % 512);
        return bytes;
    }

    /** A tar number: octal text, or base-256 when the first byte's high bit is set. */
    private static long number(byte[] b, int offset, int length) {
        if ((b[offset] & 0x80) != 0) {
            long value = b[offset] & 0x7f;
            for (int i = 1; i < length; i++) value = (value << 8) | (b[offset + i] & 0xff);
            return value;
        }
        var text = cString(b, offset, length).strip();
        if (text.isEmpty()) return 0;
        try {
            return Long.parseLong(text, 8);
        } catch (NumberFormatException e) {
            throw new Refused("a tar header's size is not a number");
        }
    }

    private static String cString(byte[] b, int offset, int length) {
        int end = offset;
        while (end < offset + length && b[end] != 0) end++;
        return new String(b, offset, end - offset, StandardCharsets.UTF_8);
    }

    private static boolean allZero(byte[] b) {
        for (byte x : b) if (x != 0) return false;
        return true;
    }

    /** Why an entry name or link target would land outside where it is unpacked; null when it would not. */
    static String unsafeName(String name) {
        if (name.getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES) return "has a name longer than " + MAX_NAME_BYTES + " bytes";
        for (int i = 0; i < name.length(); i++)
            if (name.charAt(i) < 0x20 || name.charAt(i) == 0x7f) return "has a control character in its name";
        var unified = name.replace('\\', '/');
        if (unified.startsWith("/") || unified.matches("^[A-Za-z]:.*")) return "has an absolute name";
        for (var segment : unified.split("/")) if (segment.equals("..")) return "climbs out with '..'";
        return null;
    }

    private static String printable(String name) {
        var shown = name.codePoints().map(c -> c < 0x20 || c == 0x7f ? '?' : c)
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
        return shown.length() > 200 ? shown.substring(0, 200) + "…" : shown;
    }

    private static final class Refused extends RuntimeException {
        Refused(String message) {
            super(message, null, false, false);
        }
    }

    /** Counts what is read through it. */
    private static final class Counting extends FilterInputStream {
        long count;

        Counting(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) count++;
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) count += n;
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = super.skip(n);
            count += skipped;
            return skipped;
        }

        @Override
        public void close() {
            // the caller's stream: never closed here
        }
    }
}
