package dev.caduceus.support.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link ToolJson} against what Python's {@code json.dumps} actually writes, case by case: the
 * table {@code python-json-table.jsonl} was produced by real Python ({@code python-json-table.py},
 * next to it) and is kept in the tests, so the comparison needs no Python at build time.
 */
class PythonJsonTableTest {
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS) // Python writes NaN and Infinity
            .build();

    record Case(String name, JsonNode input, String compact, String indented) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<Case> table() throws IOException {
        List<Case> cases = new ArrayList<>();
        try (InputStream in = PythonJsonTableTest.class.getResourceAsStream("/python-json-table.jsonl")) {
            for (var line : new String(in.readAllBytes(), StandardCharsets.US_ASCII).split("\n")) {
                if (line.isBlank() || line.startsWith("//")) continue;
                var row = JSON.readTree(line);
                cases.add(new Case(row.get(0).asText(), JSON.readTree(row.get(1).asText()), row.get(2).asText(),
                        row.get(3).asText()));
            }
        }
        assertTrue(cases.size() >= 20, "the table was read: " + cases.size());
        return cases;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("table")
    void compactIsByteIdenticalToJsonDumps(Case c) {
        assertEquals(c.compact(), ToolJson.compact(c.input()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("table")
    void indentedIsByteIdenticalToJsonDumpsIndentTwo(Case c) {
        assertEquals(c.indented(), ToolJson.indented(c.input()));
    }
}
