package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.support.json.ToolJson;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import dev.caduceus.platform.testkit.Turn.ToolCall;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The batch output for a fixed dataset and scripted upstream against files written the way Hermes'
 * {@code batch_runner.py} writes them ({@code src/test/resources/batch/golden/}, see its README for how
 * they were produced): {@code trajectories.jsonl} byte for byte, {@code statistics.json} byte for byte up
 * to Hermes' last key (Caduceus' additions follow it), and {@code checkpoint.json} with the Caduceus
 * additions taken out. Volatile values (timestamps, durations) are replaced by placeholders first. Also:
 * no sample with inline reasoning is discarded, batch files hold only trajectories, {@code batch.log}.
 */
class BatchGoldenIT {
    static final ObjectMapper JSON = new ObjectMapper();
    static ScriptedUpstream upstream;

    @TempDir Path home;
    @TempDir Path work;

    @BeforeAll
    static void start() {
        upstream = ScriptedUpstream.start();
    }

    @AfterAll
    static void stop() {
        if (upstream != null) upstream.close();
    }

    static Map<String, String> env() {
        var env = new HashMap<String, String>();
        env.put("OPENAI_BASE_URL", upstream.baseUrl());
        env.put("CADUCEUS_MODEL", "scripted-model");
        env.put("CADUCEUS__MODEL__HEALTH_PROBE", "false");
        return env;
    }

    static String golden(String name) throws IOException {
        try (InputStream in = BatchGoldenIT.class.getResourceAsStream("/batch/golden/" + name)) {
            if (in == null) throw new IllegalStateException("missing golden file " + name);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /**
     * The prompts of {@code dataset.jsonl}, each with the upstream turns that answer it, in order.
     * Each model call is answered by its prompt (the request's first user message) and its step (the
     * assistant messages so far), not by arrival order: a retried call or prompts taken in another
     * order still get their own answers.
     */
    static void script() throws IOException {
        var turns = new java.util.LinkedHashMap<String, List<Turn>>();
        var prompts = golden("dataset.jsonl").lines().map(l -> {
            try {
                return JSON.readTree(l).path("prompt").asText();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }).toList();
        var cases = new String[] {"lower", "upper", "title"};
        int i = 0;
        for (var tag : List.of("think", "thinking", "thought", "reasoning", "REASONING_SCRATCHPAD"))
            for (var c : cases) {
                var spelled = switch (c) {
                    case "lower" -> tag.toLowerCase();
                    case "upper" -> tag.toUpperCase();
                    default -> Character.toUpperCase(tag.charAt(0)) + tag.substring(1).toLowerCase();
                };
                turns.put(prompts.get(i++), List.of(Turn.text("<" + spelled + ">\nPlan with " + spelled + ".\n</"
                        + spelled + ">\n\nAnswer with " + spelled + ".")));
            }
        turns.put(prompts.get(i++), List.of(Turn.reasoning("Native reasoning, kept as sent.").withText("Native answer.")));
        turns.put(prompts.get(i++), List.of(Turn.text("Intro. <thought>Mid-answer thought.</thought> Outro.")));
        turns.put(prompts.get(i++), List.of(Turn.text("A plain answer without any reasoning.")));
        turns.put(prompts.get(i++), List.of(
                Turn.reasoning("Look around first.").withToolCalls(
                        ToolCall.of("call_1", "read_file", "{\"path\": \"missing.txt\"}"),
                        ToolCall.of("call_2", "terminal", "{\"command\": \"echo hi\"}")),
                Turn.text("<think>Now write.</think>").withToolCalls(
                        ToolCall.of("call_3", "terminal", "{\"command\": \"printf 'a\\\\tb'\"}"),
                        ToolCall.of("call_4", "write_file", "{\"path\": \"notes.txt\", \"content\": \"grüße ✓\"}")),
                Turn.reasoning("Read it twice.").withToolCalls(
                        ToolCall.of("call_5", "read_file", "{\"path\": \"notes.txt\"}"),
                        ToolCall.of("call_6", "read_file", "{\"path\": \"notes.txt\"}")),
                Turn.reasoning("All done.").withText("Wrote and read notes.txt.")));
        turns.put(prompts.get(i++), List.of(Turn.reasoning("Ünïcödé thinking ✓ \u0001.")
                .withText("Antwort: grüße 日本 \u001f \"quoted\" \\ tab\t.")));
        for (int call = 0; call < 3 * prompts.size(); call++) {
            upstream.enqueue(body -> {
                String prompt = null;
                int step = 0;
                for (var m : body.path("messages")) {
                    if (prompt == null && m.path("role").asText().equals("user")) prompt = m.path("content").asText();
                    if (m.path("role").asText().equals("assistant")) step++;
                }
                var script = turns.get(prompt);
                if (script == null || step >= script.size()) return Turn.error(400, "no turn scripted for " + prompt);
                return script.get(step);
            });
        }
    }

    static Path dataset(Path dir) throws IOException {
        var file = dir.resolve("dataset.jsonl");
        Files.writeString(file, golden("dataset.jsonl"));
        return file;
    }

    Caduceus batch(Path data, String run, String... extra) throws IOException {
        var args = new ArrayList<>(List.of("batch", "--dataset_file=" + data, "--batch_size=10", "--run_name=" + run,
                "--output_dir=" + work.resolve(run), "--distribution=terminal_only", "--seed=7", "--num_workers=1",
                "--no_progress"));
        args.addAll(List.of(extra));
        return Caduceus.launch(home, env(), args.toArray(String[]::new));
    }

    /** Timestamps and durations replaced by placeholders (they differ on every run, here and in Hermes). */
    static String normalized(String text) {
        return text.replaceAll("\"(timestamp|completed_at|last_updated|started_at|finished_at)\": \"[^\"]*\"", "\"$1\": \"TIMESTAMP\"")
                .replaceAll("\"duration_seconds\": [0-9.e+-]+", "\"duration_seconds\": 0.0")
                // the terminal tool names its backend (sandbox version or local) in its description
                .replaceAll("Backend: [^\"]*?\\.\\\\\", ", "Backend: BACKEND.\\\\\", ")
                // this installation's tools Hermes lacks come into tool_stats too (docs/batch-migrating-from-hermes.md)
                .replace("\"deliver_file\": {\"count\": 0, \"success\": 0, \"failure\": 0}, ", "")
                .replace("\"deliver_file\": 0, ", "")
                // write_file answers with the absolute path of the prompt's temporary task directory
                .replaceAll("\\\\\"resolved_path\\\\\": \\\\\"[^\"]*?\\\\\"", java.util.regex.Matcher.quoteReplacement("\\\"resolved_path\\\": \\\"RESOLVED_PATH\\\""));
    }

    @Test
    void outputMatchesTheFilesHermesWritesForTheGoldenDataset() throws Exception {
        upstream.recordRequests(false);
        script();
        var run = batch(dataset(work), "golden");
        int status = run.awaitExit();
        upstream.clearQueue(); // the spare answers (for retries) are not for the tests that follow
        assertEquals(0, status, run.stdout() + run.stderr());
        var dir = work.resolve("golden");
        Files.writeString(Path.of("target", "golden-actual-trajectories.jsonl"), Files.readString(dir.resolve("trajectories.jsonl")));
        Files.writeString(Path.of("target", "golden-actual-statistics.json"), Files.readString(dir.resolve("statistics.json")));
        Files.writeString(Path.of("target", "golden-actual-checkpoint.json"), Files.readString(dir.resolve("checkpoint.json")));

        var trajectories = normalized(Files.readString(dir.resolve("trajectories.jsonl")));
        var expected = golden("trajectories.jsonl").split("\n");
        var actual = trajectories.split("\n");
        assertEquals(expected.length, actual.length, trajectories);
        for (int i = 0; i < expected.length; i++) assertEquals(expected[i], actual[i], "trajectory line " + (i + 1));

        var statistics = normalized(Files.readString(dir.resolve("statistics.json")));
        var hermesStatistics = golden("statistics.json");
        var prefix = hermesStatistics.substring(0, hermesStatistics.length() - "\n}".length());
        assertTrue(statistics.startsWith(prefix + ",\n  \"discarded_no_reasoning\": 1,"),
                "statistics.json is Hermes' up to reasoning_statistics, then the Caduceus additions:\n" + statistics);

        var checkpoint = (ObjectNode) JSON.readTree(Files.readString(dir.resolve("checkpoint.json")));
        for (var addition : List.of("format", "dataset_sha256", "total_prompts", "distribution", "seed", "next_batch_num",
                "discarded_prompts", "failed_prompts", "invocations"))
            assertTrue(checkpoint.remove(addition) != null, addition);
        for (var batch : checkpoint.path("batch_stats"))
            for (var addition : List.of("failed", "tool_stats", "reasoning_stats")) ((ObjectNode) batch).remove(addition);
        assertEquals(golden("checkpoint.json"), normalized(ToolJson.indented(checkpoint)));

        for (var n = 0; n < 2; n++)
            for (var line : Files.readAllLines(dir.resolve("batch_" + n + ".jsonl")))
                assertTrue(JSON.readTree(line).has("conversations"), "batch files hold trajectories only: " + line);
        var discarded = Files.readAllLines(dir.resolve("discarded.jsonl"));
        assertEquals(List.of("{\"prompt_index\": 17, \"discarded\": \"no_reasoning\", \"prompt\": \"Answer plainly.\"}"), discarded,
                "only the sample without any reasoning is discarded");
        var log = Files.readString(dir.resolve("batch.log"));
        assertTrue(log.contains("[B0:P0] Inline think reasoning, lower case. started") && log.contains("[B0:P0] completed in "), log);
        assertTrue(log.contains("[B1:P17] discarded (no reasoning) in "), log);
        assertTrue(log.contains("summary: 20 processed, 0 failed, 1 discarded (no reasoning), 19 trajectories in 2 batch files"), log);
    }

    @Test
    void toolStatsSchemaInstalledListsOnlyThisInstallationsTools() throws Exception {
        upstream.setDefault(Turn.reasoning("Thinking.").withText("Fine."));
        var data = work.resolve("one.jsonl");
        Files.writeString(data, "{\"prompt\": \"one\"}\n");
        var installed = batch(data, "installed", "--tool_stats_schema=installed");
        assertEquals(0, installed.awaitExit(), installed.stderr());
        var hermes = batch(data, "hermes", "--tool-stats-schema", "hermes");
        assertEquals(0, hermes.awaitExit(), hermes.stderr());
        var few = names(JSON.readTree(Files.readString(work.resolve("installed/trajectories.jsonl"))).path("tool_stats"));
        var many = names(JSON.readTree(Files.readString(work.resolve("hermes/trajectories.jsonl"))).path("tool_stats"));
        assertEquals(List.of("deliver_file", "memory", "patch", "process", "read_file", "search_files", "terminal",
                "web_extract", "web_search", "write_file"), few);
        assertEquals(92, many.size(), "Hermes' 90 names plus our process and deliver_file: " + many);
        assertEquals(many.stream().sorted().toList(), many);
        assertTrue(many.containsAll(few));
        var bad = batch(data, "bad", "--tool_stats_schema=nope");
        assertEquals(2, bad.awaitExit());
        assertTrue(bad.stderr().contains("--tool_stats_schema must be installed or one of: hermes"), bad.stderr());
    }

    @Test
    void aFlagGivenTwiceTakesTheLastValueWithAWarning() throws Exception {
        upstream.setDefault(Turn.reasoning("Thinking.").withText("Fine."));
        var data = work.resolve("three.jsonl");
        Files.writeString(data, "{\"prompt\": \"a\"}\n{\"prompt\": \"b\"}\n{\"prompt\": \"c\"}\n");
        var run = batch(data, "twice", "--batch_size", "1", "--batch-size=2", "--num_workers=3");
        assertEquals(0, run.awaitExit(), run.stdout() + run.stderr());
        assertTrue(run.stderr().contains("⚠️  --batch_size was given 3 times; using the last value: 2"), run.stderr());
        assertTrue(run.stderr().contains("⚠️  --num_workers was given 2 times; using the last value: 3"), run.stderr());
        assertTrue(Files.exists(work.resolve("twice/batch_1.jsonl")) && !Files.exists(work.resolve("twice/batch_2.jsonl")),
                "two batches of 2");
    }

    @Test
    void aRunOfThePreviousReleaseWithTombstonesInsideBatchFilesResumes() throws Exception {
        upstream.setDefault(Turn.reasoning("Thinking.").withText("Fine."));
        var data = work.resolve("old.jsonl");
        Files.writeString(data, "{\"prompt\": \"kept\"}\n{\"prompt\": \"dropped\"}\n{\"prompt\": \"todo\"}\n");
        var dir = Files.createDirectories(work.resolve("old"));
        // what the previous release wrote: a trajectory and a tombstone in batch_0, completed_prompts without the discarded one
        Files.writeString(dir.resolve("batch_0.jsonl"), "{\"prompt_index\": 0, \"conversations\": [{\"from\": \"system\", \"value\": \"s\"}, "
                + "{\"from\": \"human\", \"value\": \"kept\"}, {\"from\": \"gpt\", \"value\": \"<think>\\nx\\n</think>\\ny\"}], "
                + "\"tool_stats\": {\"terminal\": {\"count\": 0, \"success\": 0, \"failure\": 0}}}\n"
                + "{\"prompt_index\": 1, \"discarded\": \"no_reasoning\", \"prompt\": \"dropped\"}\n");
        Files.writeString(dir.resolve("checkpoint.json"), "{\"run_name\": \"old\", \"completed_prompts\": [0], \"batch_stats\": {}, "
                + "\"last_updated\": null, \"format\": \"caduceus-batch-1\", \"dataset_sha256\": \"stale\", \"seed\": 7, "
                + "\"distribution\": \"terminal_only\", \"next_batch_num\": 1, \"discarded_prompts\": [1]}");
        var resumed = batch(data, "old", "--resume");
        assertEquals(0, resumed.awaitExit(), resumed.stdout() + resumed.stderr());
        var humans = new ArrayList<String>();
        for (var line : Files.readAllLines(dir.resolve("trajectories.jsonl")))
            humans.add(JSON.readTree(line).path("conversations").get(1).path("value").asText());
        assertEquals(List.of("kept", "todo"), humans, "only 'todo' ran again; the old tombstone is no trajectory");
        var cp = JSON.readTree(Files.readString(dir.resolve("checkpoint.json")));
        assertEquals("[0,1,2]", cp.path("completed_prompts").toString(), "sorted, discarded included as in Hermes");
        assertEquals("[1]", cp.path("discarded_prompts").toString());
        assertFalse(Files.readString(dir.resolve("batch_1.jsonl")).contains("discarded"));
    }

    @Test
    void aNewRunResumesFromDiscardedJsonlWithoutRunningDiscardedPromptsAgain() throws Exception {
        upstream.setDefault(Turn.text("No reasoning here."));
        var data = work.resolve("new.jsonl");
        Files.writeString(data, "{\"prompt\": \"x\"}\n");
        var first = batch(data, "fresh");
        assertEquals(0, first.awaitExit(), first.stderr());
        assertEquals(1, Files.readAllLines(work.resolve("fresh/discarded.jsonl")).size());
        // the dataset grew: content matching must find x in discarded.jsonl
        Files.writeString(data, "{\"prompt\": \"x\"}\n{\"prompt\": \"y\"}\n");
        upstream.setDefault(Turn.reasoning("Thinking.").withText("Fine."));
        var second = batch(data, "fresh", "--resume");
        assertEquals(0, second.awaitExit(), second.stderr());
        assertTrue(second.stderr().contains("by prompt content"), second.stderr());
        var lines = Files.readAllLines(work.resolve("fresh/trajectories.jsonl"));
        assertEquals(1, lines.size());
        assertTrue(lines.getFirst().contains("\"value\": \"y\""), lines.getFirst());
        assertEquals(1, Files.readAllLines(work.resolve("fresh/discarded.jsonl")).size(), "x did not run again");
        assertTrue(Files.exists(work.resolve("fresh/batch.log.1")), "the first invocation's log was rotated");
        var cp = JSON.readTree(Files.readString(work.resolve("fresh/checkpoint.json")));
        assertEquals("[0,1]", cp.path("completed_prompts").toString());
    }

    static List<String> names(JsonNode node) {
        var out = new ArrayList<String>();
        node.fieldNames().forEachRemaining(out::add);
        return out;
    }
}
