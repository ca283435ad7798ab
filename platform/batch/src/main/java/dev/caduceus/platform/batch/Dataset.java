package dev.caduceus.platform.batch;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The JSONL dataset: valid entries with their {@code prompt_index} (position among
 * valid entries, after {@code --max_samples}), the warnings for skipped lines (with 1-based line
 * numbers), and the sha256 of the file's bytes (the checkpoint's {@code dataset_sha256}). Immutable.
 */
record Dataset(List<Entry> entries, List<String> warnings, int skipped, String sha256) {

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

    Dataset {
        entries = List.copyOf(entries);
        warnings = List.copyOf(warnings);
    }

    /**
     * Reads and validates {@code file}.
     *
     * @param maxSamples keep only the first N valid entries; 0 or less for all
     * @throws IOException when the file cannot be read or is not UTF-8
     */
    static Dataset read(Path file, int maxSamples, ObjectMapper json) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new IOException("not UTF-8 text", e);
        }
        if (text.startsWith("\uFEFF")) text = text.substring(1);
        var entries = new ArrayList<Entry>();
        var warnings = new ArrayList<String>();
        int skipped = 0;
        var lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            if (maxSamples > 0 && entries.size() >= maxSamples) break;
            var line = lines[i].strip();
            if (line.isEmpty()) continue;
            int number = i + 1;
            JsonNode node;
            try {
                node = json.readTree(line);
            } catch (IOException e) {
                warnings.add("Invalid JSON on line " + number);
                skipped++;
                continue;
            }
            var prompt = node == null ? null : node.get("prompt");
            if (node == null || !node.isObject() || prompt == null || !prompt.isTextual() || prompt.asText().isBlank()) {
                warnings.add("Line " + number + " missing 'prompt' field");
                skipped++;
                continue;
            }
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
                if (!valid) {
                    warnings.add("Line " + number + ": 'files' must be a list of file paths");
                    skipped++;
                    continue;
                }
            }
            entries.add(new Entry(entries.size(), prompt.asText(), image, text(node, "cwd"), number, files));
        }
        return new Dataset(entries, warnings, skipped, sha256(bytes));
    }

    private static String text(JsonNode node, String field) {
        var value = node.get(field);
        return value != null && value.isTextual() && !value.asText().isBlank() ? value.asText() : null;
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
