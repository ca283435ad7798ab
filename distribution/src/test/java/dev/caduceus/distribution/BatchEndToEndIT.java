package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code caduceus batch} on the assembled distribution against the scripted upstream: 200 prompts
 * with 8 workers killed with {@code kill -9} halfway and resumed (exactly 200 unique trajectories,
 * nothing acknowledged lost), plus the faults that need a real process: usage errors (exit 2),
 * malformed lines, upstream errors retried on resume, and a dataset reordered between runs.
 */
class BatchEndToEndIT {
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

    Path dataset(String name, List<String> prompts) throws Exception {
        var lines = new StringBuilder();
        for (var p : prompts) lines.append(JSON.writeValueAsString(Map.of("prompt", p))).append('\n');
        var file = work.resolve(name);
        Files.writeString(file, lines);
        return file;
    }

    Caduceus batch(Path dataset, String run, String... extra) throws Exception {
        var args = new ArrayList<>(List.of("batch", "--dataset_file=" + dataset, "--batch_size", "10",
                "--run-name=" + run, "--output_dir=" + work.resolve(run), "--distribution=terminal_only",
                "--seed=7"));
        args.addAll(List.of(extra));
        return Caduceus.launch(home, env(), args.toArray(String[]::new));
    }

    static List<JsonNode> lines(Path file) throws Exception {
        var out = new ArrayList<JsonNode>();
        for (var line : Files.readAllLines(file, StandardCharsets.UTF_8)) out.add(JSON.readTree(line));
        return out;
    }

    static String human(JsonNode trajectory) {
        return trajectory.path("conversations").get(1).path("value").asText();
    }

    @Test
    void killedHalfwayAndResumedGivesExactlyTwoHundredUniqueTrajectories() throws Exception {
        upstream.setDefault(Turn.reasoning("Let me think.").withText("Done.").delayMillis(100));
        var prompts = new ArrayList<String>();
        for (int i = 0; i < 200; i++) prompts.add("Prompt number " + i + " ✓");
        var data = dataset("e2e.jsonl", prompts);
        var first = batch(data, "e2e", "--num_workers=8");
        var checkpoint = work.resolve("e2e/checkpoint.json");
        Eventually.await(Duration.ofSeconds(60), "80 prompts were acknowledged", () -> {
            if (!Files.exists(checkpoint)) return 0;
            try {
                return JSON.readTree(Files.readString(checkpoint)).path("completed_prompts").size();
            } catch (Exception torn) {
                throw new AssertionError("checkpoint.json was torn: " + torn);
            }
        }, n -> n >= 80);
        first.process.destroyForcibly();
        int acknowledged = JSON.readTree(Files.readString(checkpoint)).path("completed_prompts").size();
        first.process.waitFor(30, TimeUnit.SECONDS);
        assertTrue(acknowledged >= 80 && acknowledged < 200, "killed halfway, at " + acknowledged + "\n" + first.stderr());
        var acked = new HashSet<Integer>();
        JSON.readTree(Files.readString(checkpoint)).path("completed_prompts").forEach(n -> acked.add(n.asInt()));

        var second = batch(data, "e2e", "--num-workers", "8", "--resume");
        assertEquals(0, second.awaitExit(), second.stdout() + second.stderr());

        var trajectories = lines(work.resolve("e2e/trajectories.jsonl"));
        assertEquals(200, trajectories.size());
        var unique = new HashSet<String>();
        var indices = new HashSet<Integer>();
        for (var t : trajectories) {
            unique.add(human(t));
            indices.add(t.path("prompt_index").asInt());
            assertEquals(List.of("prompt_index", "conversations", "metadata", "completed", "partial", "api_calls",
                    "toolsets_used", "tool_stats", "tool_error_counts"), fieldNames(t));
            assertEquals("system", t.path("conversations").get(0).path("from").asText());
            assertTrue(t.path("conversations").get(0).path("value").asText().startsWith("You are a function calling AI model."));
            assertEquals("gpt", t.path("conversations").get(2).path("from").asText());
            assertEquals("<think>\nLet me think.\n</think>\nDone.", t.path("conversations").get(2).path("value").asText());
            assertEquals("scripted-model", t.path("metadata").path("model").asText());
            assertEquals(List.of("terminal", "file"), JSON.convertValue(t.path("toolsets_used"), List.class));
            assertTrue(t.path("tool_stats").has("terminal"), t.toString());
        }
        assertEquals(200, unique.size());
        assertTrue(indices.containsAll(acked), "every prompt acknowledged before the kill is in the result");
        var stats = JSON.readTree(Files.readString(work.resolve("e2e/statistics.json")));
        assertEquals(200, stats.path("total_prompts").asInt());
        assertEquals(200, stats.path("trajectories").asInt());
        assertEquals(200, stats.path("completed_prompts").asInt());
        assertEquals(2, stats.path("invocations").asInt());
        var cp = JSON.readTree(Files.readString(checkpoint));
        assertEquals("caduceus-batch-1", cp.path("format").asText());
        assertTrue(cp.path("next_batch_num").asInt() > 20, "resumed batches continue the numbering");
    }

    /**
     * Ctrl+C (the launcher's JVM gets SIGTERM here; both run the same shutdown hook): the prompts in flight are
     * cancelled, not recorded as failures; the run exits 130 with its checkpoint written, and a resume runs exactly
     * the prompts that were not done.
     */
    @Test
    void anInterruptCancelsThePromptsInFlightAndAResumeRunsThem() throws Exception {
        upstream.setDefault(Turn.reasoning("Let me think.").withText("Done.").delayMillis(1500));
        var prompts = new ArrayList<String>();
        for (int i = 0; i < 80; i++) prompts.add("Interrupted prompt " + i);
        var data = dataset("stop.jsonl", prompts);
        var first = batch(data, "stop", "--num_workers=8");
        var log = work.resolve("stop/batch.log");
        Eventually.await(Duration.ofSeconds(60), "8 prompts completed and 8 more started", () -> {
            if (!Files.exists(log)) return List.<String>of();
            return Files.readAllLines(log, StandardCharsets.UTF_8);
        }, lines -> lines.stream().filter(l -> l.contains(" completed in ")).count() >= 8
                && lines.stream().filter(l -> l.endsWith(" started")).count() >= 16);
        first.terminate();
        assertEquals(130, first.awaitExit(), first.stdout() + first.stderr());
        assertTrue(first.stderr().contains("Interrupted: checkpoint written; re-run with --resume to continue."), first.stderr());
        assertFalse(first.stderr().contains(" done: 0 processed"), "a batch cut short is not reported done: " + first.stderr());
        assertFalse(first.stderr().contains("ERROR"), first.stderr());
        var checkpoint = JSON.readTree(Files.readString(work.resolve("stop/checkpoint.json")));
        assertEquals(0, checkpoint.path("failed").size(), "a prompt cut short is not a failure: " + checkpoint);
        int done = checkpoint.path("completed_prompts").size();
        assertTrue(done >= 8 && done < 80, "stopped partway, at " + done);
        var logged = Files.readAllLines(log, StandardCharsets.UTF_8);
        assertTrue(logged.stream().anyMatch(l -> l.contains(" interrupted in ")), String.join("\n", logged));
        assertTrue(logged.stream().noneMatch(l -> l.contains(" failed in ")), String.join("\n", logged));

        upstream.setDefault(Turn.reasoning("Let me think.").withText("Done."));
        var second = batch(data, "stop", "--num_workers=8", "--resume");
        assertEquals(0, second.awaitExit(), second.stdout() + second.stderr());
        var trajectories = lines(work.resolve("stop/trajectories.jsonl"));
        assertEquals(80, trajectories.size());
        assertEquals(80, trajectories.stream().map(BatchEndToEndIT::human).distinct().count());
    }

    @Test
    void usageErrorsExitTwoWithAClearMessage() throws Exception {
        var data = dataset("one.jsonl", List.of("hello"));
        var missing = Caduceus.launch(home, env(), "batch", "--dataset_file=" + data, "--batch_size=1");
        assertEquals(2, missing.awaitExit());
        assertTrue(missing.stderr().contains("--run_name is required"), missing.stderr());

        var unreadable = Caduceus.launch(home, env(), "batch", "--dataset_file=" + work.resolve("nope.jsonl"),
                "--batch_size=1", "--run_name=x", "--output_dir=" + work.resolve("x"));
        assertEquals(2, unreadable.awaitExit());
        assertTrue(unreadable.stderr().contains("cannot read --dataset_file"), unreadable.stderr());

        var unknown = Caduceus.launch(home, env(), "batch", "--dataset_file=" + data, "--batch_size=1",
                "--run_name=u", "--output_dir=" + work.resolve("u"), "--distribution=nonsense");
        assertEquals(2, unknown.awaitExit());
        assertTrue(unknown.stderr().contains("Unknown distribution 'nonsense'. Available: balanced, browser_only"),
                unknown.stderr());

        var browser = Caduceus.launch(home, env(), "batch", "--dataset_file=" + data, "--batch_size=1",
                "--run_name=b", "--output_dir=" + work.resolve("b"), "--distribution=browser_only");
        assertEquals(2, browser.awaitExit());
        assertTrue(browser.stderr().contains("Distribution 'browser_only' has no toolset available in this installation "
                + "(missing: browser)"), browser.stderr());

        var list = Caduceus.launch(home, env(), "batch", "--list_distributions");
        assertEquals(0, list.awaitExit(), list.stderr());
        assertTrue(list.stdout().contains("📊 Distribution: terminal_only"), list.stdout());
        assertTrue(list.stdout().contains("     • terminal        : 100% chance"), list.stdout());
        assertTrue(list.stdout().contains("     • vision          :  50% chance  (not available)"), list.stdout());
    }

    @Test
    void aThirdPartyPluginAddsADistributionThatBatchListsAndSamples() throws Exception {
        ThirdPartyPlugins.calc(home.resolve("plugins"));
        var list = Caduceus.launch(home, env(), "batch", "--list_distributions");
        assertEquals(0, list.awaitExit(), list.stderr());
        assertTrue(list.stdout().contains("📊 Distribution: calc_heavy"), list.stdout());
        assertTrue(list.stdout().contains("Arithmetic first"), list.stdout());
        assertTrue(list.stdout().contains("     • calc            : 100% chance"), list.stdout());

        upstream.setDefault(Turn.reasoning("Thinking.").withText("Fine."));
        var args = new ArrayList<>(List.of("batch", "--dataset_file=" + dataset("calc.jsonl", List.of("one", "two", "three")),
                "--batch_size=3", "--run_name=calc", "--output_dir=" + work.resolve("calc"), "--distribution=calc_heavy",
                "--seed=3", "--no_progress"));
        var run = Caduceus.launch(home, env(), args.toArray(String[]::new));
        assertEquals(0, run.awaitExit(), run.stdout() + run.stderr());
        for (var t : lines(work.resolve("calc/trajectories.jsonl"))) {
            var used = new ArrayList<String>();
            t.path("toolsets_used").forEach(n -> used.add(n.asText()));
            assertEquals("calc", used.getFirst(), t.toString()); // 100%: always sampled, first in the distribution's order
            assertTrue(t.path("tool_stats").has("add"), "the plugin's tool is a registered tool: " + t);
        }
    }

    @Test
    void malformedLinesAreReportedAndUpstreamFailuresAreRetriedOnResume() throws Exception {
        var file = work.resolve("mixed.jsonl");
        Files.writeString(file, "{\"prompt\": \"first\"}\n{not json\n\n{\"no_prompt\": 1}\n{\"prompt\": \"second\"}\n");
        upstream.setDefault(Turn.error(400, "scripted refusal"));
        var failing = batch(file, "faults", "--num_workers=2", "--no_progress");
        assertEquals(3, failing.awaitExit(), failing.stdout() + failing.stderr());
        assertTrue(failing.stderr().contains("Invalid JSON on line 2"), failing.stderr());
        assertTrue(failing.stderr().contains("Line 4 missing 'prompt' field"), failing.stderr());
        var cp = JSON.readTree(Files.readString(work.resolve("faults/checkpoint.json")));
        assertEquals(2, cp.path("failed_prompts").size(), cp.toString());
        assertTrue(failing.stdout().contains("Re-run with --resume to retry 2 failed prompts"), failing.stdout());

        upstream.setDefault(Turn.reasoning("Thinking.").withText("Fine."));
        var retried = batch(file, "faults", "--resume");
        assertEquals(0, retried.awaitExit(), retried.stdout() + retried.stderr());
        assertEquals(2, lines(work.resolve("faults/trajectories.jsonl")).size());
        cp = JSON.readTree(Files.readString(work.resolve("faults/checkpoint.json")));
        assertEquals(0, cp.path("failed_prompts").size());
    }

    @Test
    void aDatasetReorderedBetweenRunsIsMatchedByContent() throws Exception {
        upstream.setDefault(Turn.reasoning("Thinking.").withText("Fine."));
        var first = batch(dataset("a.jsonl", List.of("alpha", "beta", "gamma")), "reorder");
        assertEquals(0, first.awaitExit(), first.stderr());
        var reordered = dataset("a.jsonl", List.of("gamma", "delta", "alpha", "beta"));
        var second = batch(reordered, "reorder", "--resume");
        assertEquals(0, second.awaitExit(), second.stderr());
        assertTrue(second.stderr().contains("by prompt content"), second.stderr());
        var prompts = new HashSet<String>();
        for (var t : lines(work.resolve("reorder/trajectories.jsonl"))) prompts.add(human(t));
        assertEquals(java.util.Set.of("alpha", "beta", "gamma", "delta"), prompts);
        assertEquals(4, lines(work.resolve("reorder/trajectories.jsonl")).size());

        var again = batch(reordered, "reorder");
        assertEquals(2, again.awaitExit());
        assertTrue(again.stderr().contains("already contains results. Use --resume to continue or --overwrite"),
                again.stderr());
    }

    static List<String> fieldNames(JsonNode node) {
        var out = new ArrayList<String>();
        node.fieldNames().forEachRemaining(out::add);
        return out;
    }
}
