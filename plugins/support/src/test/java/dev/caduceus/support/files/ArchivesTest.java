package dev.caduceus.support.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Archive bombs in names and sizes: zips written by the JDK's writer, tars and tar.gz written by GNU tar (the
 * program users make them with), a tar header with a device made by hand (tar needs root to read a device);
 * each refused for the reason it carries, and ordinary archives read through with their entries and sizes.
 */
class ArchivesTest {
    @TempDir Path dir;

    static byte[] zip(List<String> names, long zerosEach) throws IOException {
        var out = new ByteArrayOutputStream();
        try (var zip = new ZipOutputStream(out)) {
            for (var name : names) {
                zip.putNextEntry(new ZipEntry(name));
                zeros(zip, zerosEach);
                zip.closeEntry();
            }
        }
        return out.toByteArray();
    }

    static void zeros(OutputStream out, long n) throws IOException {
        var block = new byte[64 * 1024];
        for (long left = n; left > 0; left -= block.length) out.write(block, 0, (int) Math.min(block.length, left));
    }

    static Archives.Verdict inspect(byte[] bytes) throws IOException {
        var type = ContentSniffer.sniff(bytes, Math.min(bytes.length, ContentSniffer.HEAD), bytes.length <= ContentSniffer.HEAD);
        assertTrue(Archives.inspected(type), "sniffed as an archive: " + type);
        return Archives.inspect(type, new ByteArrayInputStream(bytes));
    }

    static String refusal(byte[] bytes) throws IOException {
        return assertInstanceOf(Archives.Verdict.Unsafe.class, inspect(bytes)).reason();
    }

    /** Runs GNU tar in {@link #dir} with {@code args}; the archive it wrote there. */
    byte[] tar(String archive, String... args) throws Exception {
        var command = new java.util.ArrayList<>(List.of("tar"));
        command.addAll(List.of(args));
        var process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        var output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), output);
        return Files.readAllBytes(dir.resolve(archive));
    }

    @Test
    void ordinaryArchivesAreReadThrough() throws Exception {
        var safe = assertInstanceOf(Archives.Verdict.Safe.class, inspect(zip(List.of("data/", "data/a.csv", "b.txt"), 1000)));
        assertEquals(3, safe.entries());
        assertEquals(3000, safe.unpackedBytes());

        Files.createDirectories(dir.resolve("src/" + "deep/".repeat(40)));
        Files.writeString(dir.resolve("src/" + "deep/".repeat(40) + "x".repeat(150) + ".txt"), "a long name");
        Files.writeString(dir.resolve("src/notes.md"), "# notes\n");
        Files.createSymbolicLink(dir.resolve("src/readme"), Path.of("notes.md"));
        for (var format : List.of("gnu", "posix")) {
            var tgz = assertInstanceOf(Archives.Verdict.Safe.class, inspect(tar(format + ".tgz", "--format=" + format, "-czf",
                    format + ".tgz", "src")));
            assertEquals(44, tgz.entries(), format + ": src, 40 directories, the long name, notes.md and the link");
            assertEquals("a long name".length() + "# notes\n".length(), tgz.unpackedBytes(), format);
        }
        assertInstanceOf(Archives.Verdict.Safe.class, inspect(tar("plain.tar", "-cf", "plain.tar", "src")));
        assertInstanceOf(Archives.Verdict.NotAnArchive.class, Archives.inspect("text/plain; charset=utf-8",
                new ByteArrayInputStream("id,city\n".getBytes(StandardCharsets.UTF_8))));
    }

    @Test
    void namesThatLandOutsideAreRefused() throws Exception {
        assertTrue(refusal(zip(List.of("ok.txt", "../../etc/cron.d/job"), 10)).contains("'../../etc/cron.d/job' climbs out"));
        assertTrue(refusal(zip(List.of("/etc/passwd"), 10)).contains("absolute"));
        assertTrue(refusal(zip(List.of("C:\\Windows\\evil.dll"), 10)).contains("absolute"));
        assertTrue(refusal(zip(List.of("a\\..\\..\\b"), 10)).contains("climbs out"));
        assertTrue(refusal(zip(List.of("bell\u0007.txt"), 10)).contains("control character"));
        assertTrue(refusal(zip(List.of("n".repeat(5000)), 10)).contains("longer than 4096"));

        Files.createDirectories(dir.resolve("in"));
        Files.writeString(dir.resolve("in/x.txt"), "x");
        assertTrue(refusal(tar("slip.tgz", "-czf", "slip.tgz", "--transform", "s,^in/x.txt,../../x.txt,", "-P", "in/x.txt"))
                .contains("climbs out"));
        Files.createSymbolicLink(dir.resolve("in/passwd"), Path.of("/etc/passwd"));
        assertTrue(refusal(tar("link.tar", "-cf", "link.tar", "in")).contains("link 'in/passwd' points to '/etc/passwd'"));
        Files.delete(dir.resolve("in/passwd"));
        Files.createSymbolicLink(dir.resolve("in/up"), Path.of("../../.."));
        assertTrue(refusal(tar("up.tgz", "-czf", "up.tgz", "in")).contains("points to '../../..'"));
    }

    @Test
    void devicesAndPipesInATarAreRefused() throws Exception {
        for (char type : new char[] {'3', '4', '6'}) {
            var header = new byte[512];
            var name = "dev/sda".getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(name, 0, header, 0, name.length);
            System.arraycopy("0000000\0".getBytes(StandardCharsets.US_ASCII), 0, header, 124, 8);
            header[156] = (byte) type;
            System.arraycopy("ustar\u000000".getBytes(StandardCharsets.US_ASCII), 0, header, 257, 8);
            var archive = new byte[512 * 3];
            System.arraycopy(header, 0, archive, 0, 512);
            assertTrue(refusal(archive).contains("device or a pipe"), String.valueOf(type));
        }
        Files.writeString(dir.resolve("fifo-holder"), "");
        var fifo = new ProcessBuilder("mkfifo", dir.resolve("pipe").toString()).start();
        assertEquals(0, fifo.waitFor());
        assertTrue(refusal(tar("pipe.tar", "-cf", "pipe.tar", "pipe")).contains("device or a pipe"), "GNU tar's own pipe entry");
    }

    @Test
    void sizeBombsAreRefusedWhileReading() throws Exception {
        var bomb = zip(List.of("zeros.bin"), 80L * 1024 * 1024); // 80 MiB of zeros (past the 64 MiB floor) in ~80 KiB
        assertTrue(bomb.length < 1024 * 1024, "a small file: " + bomb.length);
        assertTrue(refusal(bomb).contains("more than 100 times its size"));

        var gz = new ByteArrayOutputStream();
        try (var out = new GZIPOutputStream(gz)) {
            zeros(out, 80L * 1024 * 1024);
        }
        assertTrue(refusal(gz.toByteArray()).contains("more than 100 times its size"));

        var many = new java.util.ArrayList<String>();
        for (int i = 0; i <= Archives.MAX_ENTRIES; i++) many.add("f" + i);
        assertTrue(refusal(zip(many, 0)).contains("more than 100000 entries"));

        var small = zip(List.of("zeros.bin"), 10L * 1024 * 1024); // highly compressible but under the ratio floor
        assertInstanceOf(Archives.Verdict.Safe.class, inspect(small));
    }

    @Test
    void whatCannotBeReadAsItsTypeIsRefused() throws Exception {
        var zip = zip(List.of("a.txt"), 1000);
        var cut = java.util.Arrays.copyOf(zip, 40); // the local header, cut inside the data
        assertTrue(refusal(cut).contains("cannot be read"), refusal(cut));
    }
}
