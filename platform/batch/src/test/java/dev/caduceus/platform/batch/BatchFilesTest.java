package dev.caduceus.platform.batch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A dataset line's {@code files} (issue 45): paths resolved against the dataset's directory; each file placed in the
 * prompt's workspace under {@code inputs/} and named in the prompt, one line each (a small text inline too); a
 * malformed list skips the line with a warning; a missing file fails the prompt.
 */
class BatchFilesTest {
    @TempDir Path dir;

    @Test
    void filesAreResolvedAgainstTheDatasetAndAMalformedListSkipsTheLine() throws IOException {
        var data = Files.createDirectories(dir.resolve("data"));
        var file = Files.writeString(data.resolve("prompts.jsonl"), """
                {"prompt": "sum the column", "files": ["tables/a.csv", "/abs/b.txt"]}
                {"prompt": "bad", "files": "a.csv"}
                {"prompt": "worse", "files": [1]}
                {"prompt": "none"}
                """);
        var dataset = Dataset.read(file, 0, new ObjectMapper());
        assertEquals(2, dataset.size(), dataset.warnings().toString());
        assertEquals(List.of(data.resolve("tables/a.csv"), Path.of("/abs/b.txt")), dataset.entry(0).files());
        assertEquals(List.of(), dataset.entry(1).files());
        assertEquals(List.of("Line 2: 'files' must be a list of file paths", "Line 3: 'files' must be a list of file paths"),
                dataset.warnings());
    }

    @Test
    void eachFileIsPlacedInThePromptsWorkspaceAndNamedInThePrompt() throws IOException {
        var csv = Files.writeString(dir.resolve("weather.csv"), "city,temp\nOslo,3\n");
        var workspace = Files.createDirectories(dir.resolve("task_0"));
        var entry = new Dataset.Entry(0, "Which city is warmer?", null, null, 1, List.of(csv));
        var prompt = PromptRunner.withFiles(entry, workspace);
        assertTrue(prompt.startsWith("Which city is warmer?\n[Attached file: inputs/weather.csv in the workspace (text, 17 bytes)."
                + " Its content:]\ncity,temp\nOslo,3\n"), prompt);
        assertEquals("city,temp\nOslo,3\n", Files.readString(workspace.resolve("inputs/weather.csv")));
        assertEquals("Which city is warmer?", PromptRunner.withFiles(new Dataset.Entry(0, "Which city is warmer?", null,
                null, 1), workspace), "no files: the prompt as it is");

        var missing = new Dataset.Entry(0, "p", null, null, 1, List.of(dir.resolve("gone.csv")));
        var e = assertThrows(IOException.class, () -> PromptRunner.withFiles(missing, workspace));
        assertTrue(e.getMessage().contains("file not found: " + dir.resolve("gone.csv")), e.getMessage());
    }
}
