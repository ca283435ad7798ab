package dev.caduceus.platform.batch;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * The JSONL dataset, indexed rather than held: its valid entries' {@code prompt_index} (position among valid
 * entries, after {@code --max_samples}), where each one's line starts in the file, the warnings for skipped lines
 * (with 1-based line numbers), and the sha256 of the file's bytes (the checkpoint's {@code dataset_sha256}). An
 * entry is read again from the file when a worker takes it ({@link #entry}): a million prompts cost ~20 MB here,
 * where their texts and parsed lines did not fit the default heap. Immutable; reads are safe from any thread.
 */
final class Dataset {

    /**
     * One valid line. {@code image} is {@code image} or {@code docker_image}; both optional, as is {@code cwd};
     * {@code files} the paths of its {@code files} list, resolved against the dataset's directory (empty: none).
     */
    record Entry(int promptIndex, String prompt, String image, String cwd, int line, List<Path> files) {
        Entry {
            requireNonNull(prompt, "prompt");
            files = List.copyOf(files);
        }

        Entry(int promptIndex, String prompt, String image, String cwd, int line) {
            this(promptIndex, prompt, image, cwd, line, List.of());
        }
    }

    private final Path file;
    private final ObjectMapper json;
    private final int size;
    /** Per entry (the first {@link #size} of each): its line's byte offset, 1-based number and stripped text's fingerprint. */
    private final long[] offsets;
    private final int[] lines;
    private final long[] fingerprints;
    private final List<String> warnings;
    private final int skipped;
    private final String sha256;

    private Dataset(Path file, ObjectMapper json, Index index, List<String> warnings, int skipped, String sha256) {
        this.file = file;
        this.json = json;
        this.size = index.size;
        this.offsets = index.offsets; // not trimmed: a copy would double them for a moment; nothing else holds them
        this.lines = index.lines;
        this.fingerprints = index.fingerprints;
        this.warnings = List.copyOf(warnings);
        this.skipped = skipped;
        this.sha256 = sha256;
    }

    /** The number of valid entries (after {@code --max_samples}). */
    int size() {
        return size;
    }

    List<String> warnings() {
        return warnings;
    }

    int skipped() {
        return skipped;
    }

    String sha256() {
        return sha256;
    }

    /**
     * Reads and validates {@code file} one line at a time, keeping where each valid entry starts.
     *
     * @param maxSamples keep only the first N valid entries; 0 or less for all
     * @throws IOException when the file cannot be read or is not UTF-8
     */
    static Dataset read(Path file, int maxSamples, ObjectMapper json) throws IOException {
        var digest = sha256Digest();
        var decoder = utf8();
        var index = new Index();
        var warnings = new ArrayList<String>();
        int skipped = 0;
        var line = new LineBuffer();
        long position = 0, lineStart = 0;
        int number = 0;
        var chunk = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(file)) {
            for (int n; (n = in.read(chunk)) > 0; position += n) {
                digest.update(chunk, 0, n);
                int from = 0;
                for (int i = 0; i < n; i++) {
                    if (chunk[i] != '\n') continue;
                    line.append(chunk, from, i - from);
                    number++;
                    skipped += take(file, json, decoder, line, lineStart, number, maxSamples, index, warnings);
                    line.clear();
                    from = i + 1;
                    lineStart = position + from;
                }
                line.append(chunk, from, n - from);
            }
        }
        number++; // the text after the last newline, as a split of the whole text gives it (often empty)
        skipped += take(file, json, decoder, line, lineStart, number, maxSamples, index, warnings);
        return new Dataset(file, json, index, warnings, skipped, HexFormat.of().formatHex(digest.digest()));
    }

    /** Validates one line and indexes it if it is an entry; returns 1 if it was skipped with a warning. */
    private static int take(Path file, ObjectMapper json, CharsetDecoder decoder, LineBuffer line, long lineStart, int number,
                            int maxSamples, Index index, List<String> warnings) throws IOException {
        int bom = number == 1 && line.startsWithBom() ? 3 : 0;
        var text = line.decode(bom, decoder); // every line is checked to be UTF-8, past --max_samples too
        if (maxSamples > 0 && index.size >= maxSamples) return 0;
        var stripped = text.strip();
        if (stripped.isEmpty()) return 0;
        var parsed = parse(file, json, stripped, index.size, number);
        if (parsed.warning() != null) {
            warnings.add(parsed.warning());
            return 1;
        }
        index.add(lineStart + bom, number, PromptFingerprint.of(stripped));
        return 0;
    }

    /**
     * Entry {@code promptIndex}, read again from the file. Fails when the file no longer has that line where and as
     * it was read: the dataset changed since the run started.
     */
    Entry entry(int promptIndex) throws IOException {
        try (var reader = reader()) {
            return reader.entry(promptIndex);
        }
    }

    /** Reads entries one after another through one open file: a resume's pass over all of them. */
    Reader reader() throws IOException {
        return new Reader(FileChannel.open(file, StandardOpenOption.READ));
    }

    /** An open dataset file. Not thread-safe; close it. */
    final class Reader implements AutoCloseable {
        private final FileChannel channel;
        private final CharsetDecoder decoder = utf8();
        private final LineBuffer line = new LineBuffer();
        private final ByteBuffer buffer = ByteBuffer.allocate(1 << 13);

        private Reader(FileChannel channel) {
            this.channel = channel;
        }

        Entry entry(int promptIndex) throws IOException {
            if (promptIndex < 0 || promptIndex >= size) throw new IndexOutOfBoundsException(promptIndex);
            line.clear();
            long position = offsets[promptIndex];
            read:
            while (true) {
                buffer.clear();
                int n = channel.read(buffer, position);
                if (n <= 0) break;
                var bytes = buffer.array();
                for (int i = 0; i < n; i++) {
                    if (bytes[i] == '\n') {
                        line.append(bytes, 0, i);
                        break read;
                    }
                }
                line.append(bytes, 0, n);
                position += n;
            }
            String stripped;
            try {
                stripped = line.decode(0, decoder).strip();
            } catch (IOException e) {
                throw changed(promptIndex);
            }
            if (PromptFingerprint.of(stripped) != fingerprints[promptIndex]) throw changed(promptIndex);
            var parsed = parse(file, json, stripped, promptIndex, lines[promptIndex]);
            if (parsed.entry() == null) throw changed(promptIndex);
            return parsed.entry();
        }

        private IOException changed(int promptIndex) {
            return new IOException("the dataset " + file + " changed since the run started: line " + lines[promptIndex]
                    + " is no longer prompt " + promptIndex + " as it was read");
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }

    /** A line parsed: an entry, or the warning that skips it. */
    private record Parsed(Entry entry, String warning) {}

    private static Parsed parse(Path file, ObjectMapper json, String line, int promptIndex, int number) {
        JsonNode node;
        try {
            node = json.readTree(line);
        } catch (IOException e) {
            return new Parsed(null, "Invalid JSON on line " + number);
        }
        var prompt = node == null ? null : node.get("prompt");
        if (node == null || !node.isObject() || prompt == null || !prompt.isTextual() || prompt.asText().isBlank())
            return new Parsed(null, "Line " + number + " missing 'prompt' field");
        String image = text(node, "image");
        if (image == null) image = text(node, "docker_image");
        var files = new ArrayList<Path>();
        var listed = node.get("files");
        if (listed != null && !listed.isNull()) {
            boolean valid = listed.isArray();
            if (valid) for (var item : listed) {
                if (!item.isTextual() || item.asText().isBlank()) valid = false;
                else files.add(file.toAbsolutePath().getParent().resolve(item.asText()).normalize());
            }
            if (!valid) return new Parsed(null, "Line " + number + ": 'files' must be a list of file paths");
        }
        return new Parsed(new Entry(promptIndex, prompt.asText(), image, text(node, "cwd"), number, files), null);
    }

    private static String text(JsonNode node, String field) {
        var value = node.get(field);
        return value != null && value.isTextual() && !value.asText().isBlank() ? value.asText() : null;
    }

    static String sha256(byte[] bytes) {
        return HexFormat.of().formatHex(sha256Digest().digest(bytes));
    }

    private static MessageDigest sha256Digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static CharsetDecoder utf8() {
        return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
    }

    /** The valid entries' offsets, line numbers and fingerprints as they are found. */
    private static final class Index {
        long[] offsets = new long[1024];
        int[] lines = new int[1024];
        long[] fingerprints = new long[1024];
        int size;

        void add(long offset, int line, long fingerprint) {
            if (size == offsets.length) {
                offsets = Arrays.copyOf(offsets, size * 2);
                lines = Arrays.copyOf(lines, size * 2);
                fingerprints = Arrays.copyOf(fingerprints, size * 2);
            }
            offsets[size] = offset;
            lines[size] = line;
            fingerprints[size] = fingerprint;
            size++;
        }
    }

    /** The bytes of one line, which may span reads. */
    private static final class LineBuffer {
        private byte[] bytes = new byte[256];
        private int length;

        void append(byte[] from, int offset, int count) {
            if (length + count > bytes.length) bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + count));
            System.arraycopy(from, offset, bytes, length, count);
            length += count;
        }

        void clear() {
            length = 0;
        }

        boolean startsWithBom() {
            return length >= 3 && bytes[0] == (byte) 0xEF && bytes[1] == (byte) 0xBB && bytes[2] == (byte) 0xBF;
        }

        String decode(int from, CharsetDecoder decoder) throws IOException {
            try {
                return decoder.reset().decode(ByteBuffer.wrap(bytes, from, length - from)).toString();
            } catch (CharacterCodingException e) {
                throw new IOException("not UTF-8 text", e);
            }
        }
    }
}
