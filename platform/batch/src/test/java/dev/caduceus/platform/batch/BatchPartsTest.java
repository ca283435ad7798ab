package dev.caduceus.platform.batch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.spi.message.ContentPart;
import dev.caduceus.spi.message.Message;
import dev.caduceus.support.services.BatchCatalog.Distribution;
import dev.caduceus.support.json.ToolJson;
import dev.caduceus.spi.tool.ToolRisk;
import dev.caduceus.spi.tool.ToolSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class BatchPartsTest {
    static final ObjectMapper JSON = new ObjectMapper();
    @TempDir Path dir;

    static Distribution dist(Object... pairs) {
        var map = new LinkedHashMap<String, Integer>();
        for (int i = 0; i < pairs.length; i += 2) map.put((String) pairs[i], (Integer) pairs[i + 1]);
        return new Distribution("d", "test", map);
    }

    // ---- sampling ----------------------------------------------------------------------------

    @Test
    void samplingIsReproduciblePerSeedAndPromptIndex() {
        var sampler = new ToolsetSampler(dist("web", 50, "terminal", 50, "file", 50), Set.of("web", "terminal", "file"), 42);
        for (int i = 0; i < 50; i++) assertEquals(sampler.sample(i), sampler.sample(i));
        var other = new ToolsetSampler(sampler.distribution(), sampler.available(), 43);
        boolean differs = false;
        for (int i = 0; i < 50; i++) differs |= !sampler.sample(i).equals(other.sample(i));
        assertTrue(differs, "another seed samples differently");
    }

    @Test
    void theSeedIsTheFirstEightBytesOfSha256() {
        // sha256("7:0") = 7a9a...; independent check through the JDK
        var digest = Dataset.sha256("7:0".getBytes());
        assertEquals(Long.parseUnsignedLong(digest.substring(0, 16), 16), ToolsetSampler.seedFor(7, 0));
    }

    @Test
    void atLeastOneToolsetTheHighestValidOneFirstOnTies() {
        var sampler = new ToolsetSampler(dist("moa", 90, "web", 0, "terminal", 0), Set.of("web", "terminal"), 1);
        for (int i = 0; i < 20; i++) assertEquals(List.of("web"), sampler.sample(i), "moa is missing: web wins the tie");
        var none = new ToolsetSampler(dist("browser", 100), Set.of("web"), 1);
        assertTrue(none.usable().isEmpty());
        assertEquals(List.of("browser"), none.missing());
    }

    @Test
    void hundredAlwaysZeroNeverAndMemoryNeverAndOrderKept() {
        var sampler = new ToolsetSampler(dist("terminal", 100, "memory", 100, "file", 100, "web", 0),
                Set.of("web", "terminal", "file", "memory"), 9);
        for (int i = 0; i < 20; i++) assertEquals(List.of("terminal", "file"), sampler.sample(i));
    }

    // ---- flags -------------------------------------------------------------------------------

    static BatchCommand parse(String... args) {
        var command = new BatchCommand();
        BatchCommand.configure(new CommandLine(command)).parseArgs(args);
        return command;
    }

    @Test
    void aFlagGivenTwiceKeepsTheLastValueAndIsNamedInAWarning() throws Exception {
        var command = parse("--dataset_file=d.jsonl", "--batch_size=5", "--run_name=r", "--batch-size", "7",
                "--api_key=one", "--api-key=two", "--resume");
        assertEquals(7, command.validate().batchSize());
        assertEquals(List.of("⚠️  --batch_size was given 2 times; using the last value: 7",
                "⚠️  --api_key was given 2 times; using the last value: (hidden)"), command.repeatedFlagWarnings());
    }

    @Test
    void inlineReasoningIsMovedOutOfTheContentUnlessTheModelReportedReasoning() {
        var inline = PromptRunner.moveInlineReasoning(Message.assistant("Intro <THOUGHT> why </THOUGHT> end"), null);
        assertEquals("why", inline.reasoning());
        assertEquals("Intro  end", inline.message().text());
        var reported = PromptRunner.moveInlineReasoning(Message.assistant("<thinking>x</thinking>Answer"), "native");
        assertEquals("native", reported.reasoning());
        assertEquals("Answer", reported.message().text());
        assertEquals("<think>\nwhy\n</think>\nIntro  end", ShareGpt.finalAnswer(inline.message(), inline.reasoning()));
    }

    @Test
    void everyFlagParsesInSnakeAndKebabCase() throws Exception {
        String[][] spellings = {
                {"--dataset_file", "--dataset-file"}, {"--batch_size", "--batch-size"}, {"--run_name", "--run-name"},
                {"--base_url", "--base-url"}, {"--api_key", "--api-key"}, {"--max_turns", "--max-turns"},
                {"--num_workers", "--num-workers"}, {"--ephemeral_system_prompt", "--ephemeral-system-prompt"},
                {"--log_prefix_chars", "--log-prefix-chars"}, {"--providers_allowed", "--providers-allowed"},
                {"--providers_ignored", "--providers-ignored"}, {"--providers_order", "--providers-order"},
                {"--provider_sort", "--provider-sort"}, {"--max_tokens", "--max-tokens"},
                {"--reasoning_effort", "--reasoning-effort"}, {"--prefill_messages_file", "--prefill-messages-file"},
                {"--max_samples", "--max-samples"}, {"--output_dir", "--output-dir"}};
        String[] values = {"d.jsonl", "5", "run", "http://x", "k", "3", "2", "eph", "20", "a,b", "c", "d,e",
                "price", "100", "high", "p.json", "7", "out"};
        for (int form = 0; form < 2; form++) {
            var args = new java.util.ArrayList<String>();
            for (int i = 0; i < spellings.length; i++) {
                if (i % 2 == 0) args.add(spellings[i][form] + "=" + values[i]);
                else { args.add(spellings[i][form]); args.add(values[i]); }
            }
            args.addAll(List.of(form == 0 ? "--list_distributions" : "--list-distributions",
                    form == 0 ? "--reasoning_disabled" : "--reasoning-disabled=true",
                    form == 0 ? "--require_reasoning=false" : "--require-reasoning=false",
                    form == 0 ? "--no_progress" : "--no-progress", "--resume", "--verbose=true", "--overwrite",
                    "--seed=11", "--model=m", "--distribution=safe", "--config=c.yaml"));
            var c = parse(args.toArray(String[]::new));
            assertEquals(Path.of("d.jsonl"), c.datasetFile);
            assertEquals(5, c.batchSize);
            assertEquals("run", c.runName);
            assertEquals("http://x", c.baseUrl);
            assertEquals(2, c.numWorkers);
            assertEquals(3, c.maxTurns);
            assertEquals("eph", c.ephemeralSystemPrompt);
            assertEquals(20, c.logPrefixChars);
            assertEquals("d,e", c.providersOrder);
            assertEquals("price", c.providerSort);
            assertEquals(100, c.maxTokens);
            assertEquals("high", c.reasoningEffort);
            assertEquals(7, c.maxSamples);
            assertEquals(Path.of("out"), c.outputDir);
            assertTrue(c.listDistributions && c.reasoningDisabled && c.noProgress && c.resume && c.verbose && c.overwrite);
            assertFalse(c.requireReasoning);
            assertEquals(11L, c.seed);
        }
        assertTrue(parse().requireReasoning, "--require_reasoning defaults to true");
    }

    @Test
    void usageErrorsExitTwo() throws Exception {
        assertEquals(2, new CommandLine(new BatchCommand()).execute("--bogus"));
        var refusal = assertThrows(BatchCommand.Refusal.class, () -> parse("--batch_size=1", "--run_name=r").validate());
        assertEquals("❌ Error: --dataset_file is required", refusal.getMessage());
        assertEquals(2, refusal.status);
        assertEquals("❌ Error: --batch_size must be a positive integer", assertThrows(BatchCommand.Refusal.class,
                () -> parse("--dataset_file=d", "--batch_size=0", "--run_name=r").validate()).getMessage());
        assertThrows(BatchCommand.Refusal.class, () -> parse("--dataset_file=d", "--batch_size=1", "--run_name=a/b").validate());
        assertThrows(BatchCommand.Refusal.class,
                () -> parse("--dataset_file=d", "--batch_size=1", "--run_name=r", "--reasoning_effort=huge").validate());
        var notArray = Files.writeString(dir.resolve("p.json"), "{\"role\": \"user\"}");
        assertThrows(BatchCommand.Refusal.class, () -> parse("--dataset_file=d", "--batch_size=1", "--run_name=r",
                "--prefill_messages_file=" + notArray).validate());
    }

    @Test
    void reasoningAndProviderFlagsBecomeRequestFields() throws Exception {
        var o = parse("--dataset_file=d", "--batch_size=1", "--run_name=r", "--reasoning_effort=low",
                "--providers_allowed=a, b", "--provider_sort=latency", "--max_tokens=9").validate();
        var options = BatchCommand.modelOptions(o);
        assertEquals("{\"provider\":{\"only\":[\"a\",\"b\"],\"sort\":\"latency\"},\"reasoning\":{\"enabled\":true,\"effort\":\"low\"}}",
                options.extra().toString());
        assertEquals(9, options.maxTokens());
        var disabled = parse("--dataset_file=d", "--batch_size=1", "--run_name=r", "--reasoning_effort=low",
                "--reasoning_disabled").validate();
        assertEquals("{\"reasoning\":{\"effort\":\"none\"}}", BatchCommand.modelOptions(disabled).extra().toString());
    }

    // ---- dataset -----------------------------------------------------------------------------

    @Test
    void datasetSkipsBadLinesWithLineNumbersAndHonorsMaxSamples() throws Exception {
        var file = Files.writeString(dir.resolve("d.jsonl"),
                "{\"prompt\": \"a\", \"cwd\": \"p\"}\n\n{oops\n{\"prompt\": \"\"}\n{\"prompt\": \"b\", \"docker_image\": \"img\"}\n{\"prompt\": \"c\"}\n");
        var d = Dataset.read(file, 0, JSON);
        assertEquals(List.of("Invalid JSON on line 3", "Line 4 missing 'prompt' field"), d.warnings());
        assertEquals(2, d.skipped());
        assertEquals(3, d.size());
        assertEquals(new Dataset.Entry(1, "b", "img", null, 5), d.entry(1));
        assertEquals("p", d.entry(0).cwd());
        assertEquals(new Dataset.Entry(2, "c", null, null, 6), d.entry(2));
        assertEquals(2, Dataset.read(file, 2, JSON).size());
        assertEquals(0, Dataset.read(Files.writeString(dir.resolve("e.jsonl"), ""), 0, JSON).size());
    }

    @Test
    void datasetEntriesAreReadBackFromTheFileAcrossReadBoundariesAndEncodings() throws Exception {
        // a BOM, CRLF endings, a prompt longer than every read buffer with a four-byte character across the
        // 64 KiB boundary, and a last line without a newline
        var longPrompt = "x".repeat(65_530) + "🐍" + "y".repeat(40_000);
        var text = "\uFEFF{\"prompt\": \"first\"}\r\n{\"prompt\": \"" + longPrompt + "\"}\r\n\r\n{\"prompt\": \"é last\"}";
        var bytes = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        var file = Files.write(dir.resolve("long.jsonl"), bytes);
        var d = Dataset.read(file, 0, JSON);
        assertEquals(List.of(), d.warnings());
        assertEquals(3, d.size());
        assertEquals(new Dataset.Entry(0, "first", null, null, 1), d.entry(0));
        assertEquals(longPrompt, d.entry(1).prompt());
        assertEquals(new Dataset.Entry(2, "é last", null, null, 4), d.entry(2));
        assertEquals(Dataset.sha256(bytes), d.sha256(), "the hash of the file's bytes, BOM included");
        try (var reader = d.reader()) { // in any order through one open file
            assertEquals("é last", reader.entry(2).prompt());
            assertEquals("first", reader.entry(0).prompt());
            assertThrows(IndexOutOfBoundsException.class, () -> reader.entry(3));
        }
    }

    @Test
    void aDatasetThatIsNotUtf8AnywhereIsRefusedAndOneChangedUnderARunIsNamed() throws Exception {
        var bad = Files.write(dir.resolve("bad.jsonl"), concat("{\"prompt\": \"a\"}\n{\"prompt\": \"".getBytes(),
                new byte[] {(byte) 0xC3, (byte) 0x28}, "\"}\n".getBytes()));
        var e = assertThrows(java.io.IOException.class, () -> Dataset.read(bad, 1, JSON), "past --max_samples too");
        assertEquals("not UTF-8 text", e.getMessage());

        var file = Files.writeString(dir.resolve("d.jsonl"), "{\"prompt\": \"a\"}\n{\"prompt\": \"b\"}\n");
        var d = Dataset.read(file, 0, JSON);
        Files.writeString(file, "{\"prompt\": \"a\"}\n{\"prompt\": \"B\"}\n"); // same length, other text
        assertEquals("a", d.entry(0).prompt());
        var changed = assertThrows(java.io.IOException.class, () -> d.entry(1));
        assertEquals("the dataset " + file + " changed since the run started: line 2 is no longer prompt 1 as it was read",
                changed.getMessage());
        Files.writeString(file, "{}");
        assertThrows(java.io.IOException.class, () -> d.entry(1), "the line is gone");
    }

    private static byte[] concat(byte[]... parts) {
        var out = new java.io.ByteArrayOutputStream();
        for (var p : parts) out.writeBytes(p);
        return out.toByteArray();
    }

    // ---- ShareGPT and tool statistics -----------------------------------------------------------

    static Message assistantCalling(String text, String id, String name, String args) throws Exception {
        return new Message("assistant", text.isEmpty() ? List.of() : List.of(new ContentPart.Text(text)),
                List.of(new Message.ToolCallRef(id, name, (com.fasterxml.jackson.databind.node.ObjectNode) JSON.readTree(args))),
                null, null);
    }

    static Message tool(String id, String name, String content) {
        return new Message("tool", List.of(new ContentPart.Text(content)), List.of(), id, name);
    }

    @Test
    void convertsToTheHermesShareGptShape() throws Exception {
        var messages = List.of(
                assistantCalling("", "call_1", "terminal", "{\"command\": \"ls\"}"),
                tool("call_1", "terminal", "{\"output\": \"README.md\", \"exit_code\": 0, \"error\": null}"),
                Message.assistant("The directory contains README.md."));
        var spec = new ToolSpec("terminal", "Run a command", (com.fasterxml.jackson.databind.node.ObjectNode)
                JSON.readTree("{\"type\": \"object\"}"), "terminal", List.of(), ToolRisk.READ_ONLY, 1000, true, false, null);
        var conv = ShareGpt.conversations("List files", messages, java.util.Arrays.asList("Let me look.", ""),
                ShareGpt.systemEntry(List.of(spec)), JSON);
        assertEquals(5, conv.size());
        var system = JSON.readTree(ToolJson.compact(conv)).get(0); // the system entry is written once, then copied
        assertEquals("system", system.path("from").asText());
        assertTrue(system.path("value").asText().contains(
                "<tools>\n[{\"name\": \"terminal\", \"description\": \"Run a command\", \"parameters\": {\"type\": \"object\"}, \"required\": null}]\n</tools>"));
        assertEquals("{\"from\": \"human\", \"value\": \"List files\"}", ToolJson.compact(conv.get(1)));
        assertEquals("<think>\nLet me look.\n</think>\n<tool_call>\n{\"name\": \"terminal\", \"arguments\": {\"command\": \"ls\"}}\n</tool_call>",
                conv.get(2).path("value").asText());
        assertEquals("<tool_response>\n{\"tool_call_id\": \"call_1\", \"name\": \"terminal\", \"content\": {\"output\": \"README.md\", \"exit_code\": 0, \"error\": null}}\n</tool_response>",
                conv.get(3).path("value").asText());
        assertEquals("<think>\n</think>\nThe directory contains README.md.", conv.get(4).path("value").asText());
    }

    @Test
    void theSystemTextIsHermesByteForByte() {
        assertEquals("You are a function calling AI model. You are provided with function signatures within <tools> </tools> XML tags. "
                + "You may call one or more functions to assist with the user query. If available tools are not relevant in assisting "
                + "with user query, just respond in natural conversational language. Don't make assumptions about what values to plug "
                + "into functions. After calling & executing the functions, you will be provided with function results within "
                + "<tool_response> </tool_response> XML tags. Here are the available tools:\n<tools>\n[]\n</tools>\n"
                + "For each function call return a JSON object, with the following pydantic model json schema for each:\n"
                + "{'title': 'FunctionCall', 'type': 'object', 'properties': {'name': {'title': 'Name', 'type': 'string'}, "
                + "'arguments': {'title': 'Arguments', 'type': 'object'}}, 'required': ['name', 'arguments']}\n"
                + "Each function call should be enclosed within <tool_call> </tool_call> XML tags.\n"
                + "Example:\n<tool_call>\n{'name': <function-name>,'arguments': <args-dict>}\n</tool_call>",
                ShareGpt.systemText(List.of()));
    }

    @Test
    void toolStatsAreNormalizedOverEveryRegisteredToolThenUnknownNames() throws Exception {
        var messages = List.of(
                assistantCalling("", "1", "terminal", "{}"),
                tool("1", "terminal", "{\"output\": \"\", \"exit_code\": 2, \"error\": null}"),
                assistantCalling("", "2", "dream_tool", "{}"),
                tool("2", "dream_tool", "{\"error\": \"Unknown tool: dream_tool\"}"),
                assistantCalling("", "3", "read_file", "{}"),
                tool("3", "read_file", "Error: no such file"),
                tool("999", "read_file", "ignored: unknown id"));
        var stats = ToolStats.of(messages, JSON);
        var registered = List.of("memory", "read_file", "terminal");
        assertEquals("{\"memory\": {\"count\": 0, \"success\": 0, \"failure\": 0}, \"read_file\": {\"count\": 1, \"success\": 0, \"failure\": 1}, "
                + "\"terminal\": {\"count\": 1, \"success\": 1, \"failure\": 0}, \"dream_tool\": {\"count\": 1, \"success\": 0, \"failure\": 1}}",
                ToolJson.compact(stats.toolStats(registered)));
        assertEquals("{\"memory\": 0, \"read_file\": 1, \"terminal\": 0, \"dream_tool\": 1}",
                ToolJson.compact(stats.errorCounts(registered)));
        assertTrue(ToolStats.isFailure("{\"success\": false}", JSON));
        assertTrue(ToolStats.isFailure("{\"content\": {\"error\": \"x\"}}", JSON));
        assertTrue(ToolStats.isFailure("", JSON));
        assertFalse(ToolStats.isFailure("{\"success\": 0}", JSON));
    }

    @Test
    void reasoningIsDetectedInFieldScratchpadOrNonEmptyThink() {
        assertTrue(ShareGpt.hasReasoning(Message.assistant("x"), "because"));
        assertTrue(ShareGpt.hasReasoning(Message.assistant("<REASONING_SCRATCHPAD>x</REASONING_SCRATCHPAD>"), null));
        assertTrue(ShareGpt.hasReasoning(Message.assistant("<think>hm</think> ok"), null));
        assertFalse(ShareGpt.hasReasoning(Message.assistant("<think>\n</think> ok"), " "));
    }

    // ---- files: checkpoint, resume, merge, statistics -----------------------------------------------

    /** Counters that differ from batch to batch, some with tools, for the finished-batch store's tests. */
    private static void count(Checkpoint.BatchStat s, int num) {
        s.processed = 1 + num % 3;
        s.failed = num % 5 == 0 ? 1 : 0;
        s.assistantTurns = num % 4;
        s.turnsWithReasoning = num % 2;
        s.turnsWithoutReasoning = num % 4 - num % 2;
        if (num % 3 == 0) {
            var t = new ToolStats.Counts();
            t.count = num % 300; // large enough for two-byte varints
            t.success = num % 300 - num % 2;
            t.failure = num % 2;
            s.tools.put(num % 2 == 0 ? "terminal" : "web_search", t);
        }
        if (num == 7) s.skipped = -2; // a hand-edited file's nonsense survives as written
    }

    @Test
    void theCheckpointIsWrittenEverySecondUnlessWritingItTakesMoreThanATwentiethOfThat() {
        assertEquals(java.time.Duration.ofSeconds(1), BatchRunner.commitSpacing(java.time.Duration.ofMillis(3)));
        assertEquals(java.time.Duration.ofSeconds(1), BatchRunner.commitSpacing(java.time.Duration.ofMillis(50)));
        assertEquals(java.time.Duration.ofSeconds(30), BatchRunner.commitSpacing(java.time.Duration.ofMillis(1500)),
                "a write of 1.5 s (a million one-prompt batches) takes 5 % of the run");
    }

    @Test
    void finishedBatchesAreWrittenReadAndSummedAsIfTheyWereStillRunning() throws Exception {
        var numbers = new java.util.ArrayList<Integer>();
        for (int num = 0; num < 3000; num++) numbers.add(num);
        numbers.addAll(List.of(-3, 1_000_000_000, 5_000)); // numbers of a hand-edited checkpoint, far apart
        java.util.Collections.shuffle(numbers, new java.util.Random(7)); // workers finish in any order
        var running = new Checkpoint("r");
        var mixed = new Checkpoint("r");
        for (int num : numbers) {
            count(running.batch(num), num);
            count(mixed.batch(num), num);
            if (num % 10 != 1) mixed.finish(num); // a tenth still running
        }
        var text = written(running);
        assertEquals(text, written(mixed), "in batch number order, the same text");
        assertEquals(ToolJson.indented(JSON.readTree(text)), text);
        assertEquals(3003, mixed.batchCount());
        assertEquals(300, mixed.runningCount(), "the others are in the compact store");
        var sums = Statistics.build(running, 1, "m", "t", new RunFolder.MergeResult(0, 0, 0, 0, 0, 0), null, 0, 0);
        assertEquals(sums, Statistics.build(mixed, 1, "m", "t", new RunFolder.MergeResult(0, 0, 0, 0, 0, 0), null, 0, 0),
                "the same totals");

        var read = Checkpoint.read(Files.writeString(dir.resolve("c.json"), text), "r", JSON);
        assertEquals(text, written(read), "read back: every batch finished, the same text");
        assertEquals(0, read.runningCount());
        var again = read.batch(5_000); // a resume that runs more of a finished batch
        assertEquals(1 + 5_000 % 3, again.processed);
        again.processed++;
        again.changed();
        read.finish(5_000);
        assertTrue(written(read).contains("\"5000\": {\n      \"processed\": 4,"), "its counters went on from where they were");
        var after = Statistics.build(read, 1, "m", "t", new RunFolder.MergeResult(0, 0, 0, 0, 0, 0), null, 0, 0);
        assertEquals(sums.path("tool_statistics"), after.path("tool_statistics"), "taken out and put back: the same sums");
        assertEquals(sums.path("reasoning_statistics"), after.path("reasoning_statistics"));
        assertThrows(IllegalStateException.class, () -> {
            var c = new Checkpoint("r");
            c.batch(1);
            c.finish(1);
            c.batch(2);
            c.adoptBatches(read);
        }, "a checkpoint with counters of its own adopts none");
    }

    @Test
    void checkpointRoundTripsWithHermesKeysFirstAndIsReplacedAtomically() throws Exception {
        var c = new Checkpoint("r");
        c.completed.set(0);
        c.completed.set(2);
        c.discarded.set(1);
        c.failed.put(3, new Checkpoint.Failure(1, "Upstream model returned 503", "2026-01-01T00:00:00.000000"));
        c.batch(0).processed = 4;
        c.seed = -5;
        c.datasetSha256 = "abc";
        var text = written(c);
        assertTrue(text.startsWith("{\n  \"run_name\": \"r\",\n  \"completed_prompts\": [\n    0,\n    2\n  ],\n  \"batch_stats\": {"), text);
        assertEquals(ToolJson.indented(JSON.readTree(text)), text, "written as ToolJson indents (Python's indent=2)");
        var back = Checkpoint.fromJson(JSON.readTree(text), "r");
        assertEquals(text, written(back));
        var file = Files.writeString(dir.resolve("streamed.json"), text);
        assertEquals(text, written(Checkpoint.read(file, "r", JSON)), "read streaming, the same");
        assertTrue(back.matches("abc"));
        assertFalse(back.matches("other"));
        var target = dir.resolve("checkpoint.json");
        AtomicFiles.replace(target, text);
        AtomicFiles.replace(target, "{}");
        assertEquals("{}", Files.readString(target));
        assertFalse(Files.exists(dir.resolve("checkpoint.json.tmp")), "no temp file left behind");
    }

    @Test
    void aCheckpointWithAMillionDonePromptsIsReadAndRewrittenInA32MiBHeap() throws Exception {
        // 1,000,000 indexes, one a line: ~9 MB of file; read as a tree into a set of integers it took ~90 MB
        int done = 1_000_000;
        var c = new Checkpoint("big");
        c.completed.set(0, done);
        c.discarded.set(7);
        c.batch(0).processed = done;
        var file = dir.resolve("checkpoint.json");
        AtomicFiles.replace(file, c::write);
        assertTrue(Files.size(file) > 9_000_000, "size " + Files.size(file));
        var again = dir.resolve("again.json");
        assertEquals(done + " done, 7 discarded", SmallHeap.run("checkpoint", file.toString(), again.toString()));
        assertEquals(-1, Files.mismatch(file, again), "rewritten byte for byte");
    }

    @Test
    void aCheckpointsIndexListsIgnoreWhatIsNoPromptIndex() throws Exception {
        var file = Files.writeString(dir.resolve("odd.json"), "{\"run_name\": \"r\", \"completed_prompts\": [3, \"4\", -1, "
                + "2147483647, {\"x\": 1}, 5.0], \"batch_stats\": {}, \"discarded_prompts\": [9]}");
        var c = Checkpoint.read(file, "r", JSON);
        assertEquals("{0, 3, 4, 5}", c.completed.toString(), "negative and huge indexes are ignored; a container reads as 0");
        assertEquals("{9}", c.discarded.toString());
        var torn = Files.writeString(dir.resolve("torn.json"), "{\"run_name\": \"r\", \"completed_prompts\": [1, 2");
        assertThrows(java.io.IOException.class, () -> Checkpoint.read(torn, "r", JSON));
    }

    private static String written(Checkpoint c) throws java.io.IOException {
        var out = new java.io.StringWriter();
        c.write(out);
        return out.toString();
    }

    @Test
    void resumeMatchesByIndexWhenTheDatasetIsUnchangedElseByContent() throws Exception {
        var file = Files.writeString(dir.resolve("d.jsonl"), "{\"prompt\": \"a\"}\n{\"prompt\": \"b\"}\n{\"prompt\": \"c\"}\n");
        var dataset = Dataset.read(file, 0, JSON);
        var folder = new RunFolder(Files.createDirectories(dir.resolve("out")));
        var previous = new Checkpoint("r");
        previous.datasetSha256 = dataset.sha256();
        previous.completed.set(0);
        previous.discarded.set(2);
        previous.failed.put(1, new Checkpoint.Failure(1, "boom", "t"));
        previous.nextBatchNum = 4;
        var into = new Checkpoint("r");
        var remaining = Resume.remaining(dataset, previous, folder, JSON, into, System.err);
        assertArrayEquals(new int[] {1}, remaining, "failed prompts are retried");
        assertEquals("b", dataset.entry(1).prompt());
        assertEquals(4, into.nextBatchNum);

        Files.writeString(folder.batch(7), "{\"prompt_index\": 0, \"conversations\": [{\"from\": \"system\", \"value\": \"s\"}, {\"from\": \"human\", \"value\": \" c \"}]}\n"
                + "{\"prompt_index\": 5, \"discarded\": \"no_reasoning\", \"prompt\": \"a\"}\n");
        var changed = Dataset.read(Files.writeString(dir.resolve("d.jsonl"),
                "{\"prompt\": \"c\"}\n{\"prompt\": \"new\"}\n{\"prompt\": \"a\"}\n"), 0, JSON);
        into = new Checkpoint("r");
        remaining = Resume.remaining(changed, previous, folder, JSON, into, System.err);
        assertArrayEquals(new int[] {1}, remaining);
        assertEquals("new", changed.entry(1).prompt());
        assertEquals(8, into.nextBatchNum, "one past the highest batch file");
    }

    @Test
    void mergeReadsBatchFilesInNumericOrderAndFilters() throws Exception {
        var folder = new RunFolder(Files.createDirectories(dir.resolve("m")));
        String ok = "{\"prompt_index\": %d, \"conversations\": [{\"from\": \"system\", \"value\": \"s\"}, {\"from\": \"human\", \"value\": \"%s\"}], \"tool_stats\": {\"terminal\": {}}}\n";
        Files.writeString(folder.batch(10), ok.formatted(10, "ten"));
        Files.writeString(folder.batch(2), ok.formatted(2, "two") + "{torn\n" + ok.formatted(2, "two")
                + "{\"prompt_index\": 3, \"discarded\": \"no_reasoning\", \"prompt\": \"x\"}\n"
                + "{\"prompt_index\": 4, \"conversations\": [], \"tool_stats\": {\"dream\": {\"count\": 1}}}\n"
                + ok.formatted(5, "padded").replace("{\"terminal\": {}}", "{\"browser_click\": {\"count\": 0}, \"terminal\": {}}"));
        var result = folder.merge(Set.of("terminal"), JSON);
        var lines = Files.readAllLines(folder.trajectories());
        assertEquals(3, lines.size(), "a column of the Hermes schema that was never called is no hallucination");
        assertTrue(lines.get(0).contains("\"two\"") && lines.get(2).contains("\"ten\""), "batch_2 before batch_10");
        assertEquals(new RunFolder.MergeResult(3, 2, 1, 1, 1, 1), result);
    }

    @Test
    void theMergesStreamingReadOfALineAgreesWithItsTree() throws Exception {
        var registered = Set.of("terminal");
        var lines = List.of(
                "{\"prompt_index\": 3, \"conversations\": [{\"from\": \"system\", \"value\": \"s\"}, {\"value\": \"v\", \"from\": \"human\"}, {\"from\": \"human\", \"value\": \"second\"}]}",
                "{\"prompt_index\": 2.50, \"conversations\": [7, [\"x\"], {\"from\": \"human\", \"value\": 12}], \"tool_stats\": {\"terminal\": {\"count\": 2}}}",
                "{\"prompt_index\": \"a\", \"conversations\": [{\"from\": \"human\", \"value\": {\"nested\": [1]}}], \"tool_stats\": {\"dream\": {\"count\": \"3\"}}}",
                "{\"prompt_index\": [1], \"tool_stats\": {\"dream\": {\"count\": 0}, \"x\": 5, \"y\": {\"count\": 1.9}}}",
                "{\"prompt_index\": null, \"conversations\": {}, \"tool_stats\": [], \"discarded\": \"no_reasoning\"}",
                "{\"prompt\": \"p\", \"conversations\": [{\"from\": \"human\", \"value\": \"h\"}], \"discarded\": \"no_reasoning\"}",
                "{\"prompt_index\": 4, \"discarded\": \"no_reasoning\", \"prompt\": 5}",
                "{\"conversations\": [{\"from\": \"human\"}], \"extra\": {\"deep\": [{\"a\": [true, false, null]}]}}",
                "{\"prompt_index\": 1, \"conversations\": [{\"from\": \"human\", \"value\": \"torn",
                "[1, 2]", "\"text\"", "{} trailing", "not json");
        for (var line : lines) {
            var facts = TrajectoryLine.read(line, registered, JSON.getFactory());
            com.fasterxml.jackson.databind.JsonNode node;
            try {
                node = JSON.readTree(line);
            } catch (java.io.IOException e) {
                node = null;
            }
            if (node == null || !node.isObject()) {
                assertEquals(null, facts, line);
                continue;
            }
            boolean unknown = false;
            for (var e : node.path("tool_stats").properties())
                if (e.getValue().path("count").asInt() > 0 && !registered.contains(e.getKey())) unknown = true;
            String prompt = null; // what the tree says: a tombstone's prompt string, else the first human turn's value
            if (node.has("discarded")) prompt = node.path("prompt").isTextual() ? node.path("prompt").asText() : null;
            else for (var turn : node.path("conversations"))
                if (prompt == null && "human".equals(turn.path("from").asText())) prompt = turn.path("value").asText();
            assertEquals(new TrajectoryLine(node.has("discarded"), unknown, node.path("prompt_index").asText(), prompt),
                    facts, line);
        }
    }

    @Test
    void aMergeThatFailsLeavesThePreviousOutputAndEveryBatchFile() throws Exception {
        var folder = new RunFolder(Files.createDirectories(dir.resolve("f")));
        String ok = "{\"prompt_index\": %d, \"conversations\": [{\"from\": \"human\", \"value\": \"p%d\"}]}\n";
        Files.writeString(folder.batch(0), ok.formatted(0, 0));
        folder.merge(Set.of(), JSON);
        var before = Files.readString(folder.trajectories());
        Files.writeString(folder.batch(1), ok.formatted(1, 1));
        Files.createDirectories(folder.batch(2)); // a batch "file" that cannot be read
        assertThrows(java.io.IOException.class, () -> folder.merge(Set.of(), JSON));
        assertEquals(before, Files.readString(folder.trajectories()), "the previous merge stands");
        assertFalse(Files.exists(dir.resolve("f/trajectories.jsonl.tmp")), "no temp file left behind");
        assertEquals(ok.formatted(1, 1), Files.readString(folder.batch(1)));
        Files.delete(folder.batch(2));
        assertEquals(2, folder.merge(Set.of(), JSON).trajectories(), "the next merge takes every line");
    }

    @Test
    void aMergeOfManyTrajectoriesRunsInA32MiBHeap() throws Exception {
        // 60,000 trajectories with 1 KB prompts, each line twice (120 MB of batch files): the merge that
        // built the output in memory and kept every prompt's text needed over 120 MB of heap
        var folder = new RunFolder(Files.createDirectories(dir.resolve("many")));
        var pad = "x".repeat(1000);
        int n = 60_000;
        for (int b = 0; b < 4; b++)
            try (var out = Files.newBufferedWriter(folder.batch(b))) {
                for (int i = b * n / 4; i < (b + 1) * n / 4; i++) {
                    var line = "{\"prompt_index\": " + i + ", \"conversations\": [{\"from\": \"human\", \"value\": \""
                            + pad + i + "\"}]}\n";
                    out.write(line);
                    out.write(line);
                }
            }
        assertEquals(new RunFolder.MergeResult(n, 4, 0, 0, 0, n).toString(), SmallHeap.run("merge", folder.dir().toString()));
        long lines;
        try (var merged = Files.lines(folder.trajectories())) {
            lines = merged.count();
        }
        assertEquals(n, lines);
    }

    @Test
    void statisticsSumToolsSortedByCountWithRoundedRates() {
        var c = new Checkpoint("r");
        var a = new ToolStats.Counts();
        a.count = 12; a.success = 11; a.failure = 1;
        var b = new ToolStats.Counts();
        b.count = 20; b.success = 20;
        c.batch(0).tools.put("terminal", a);
        c.batch(1).tools.put("web_search", b);
        c.completed.set(0);
        var stats = Statistics.build(c, 10, "m", "t", new RunFolder.MergeResult(1, 2, 0, 0, 0, 0), null, 0, 1.234);
        var text = ToolJson.compact(stats.path("tool_statistics"));
        assertEquals("{\"web_search\": {\"count\": 20, \"success\": 20, \"failure\": 0, \"success_rate\": 100.0, \"failure_rate\": 0.0}, "
                + "\"terminal\": {\"count\": 12, \"success\": 11, \"failure\": 1, \"success_rate\": 91.67, \"failure_rate\": 8.33}}", text);
        assertEquals(1.23, stats.path("duration_seconds").asDouble());
        assertEquals(0.0, Statistics.rate(0, 0, 0));
    }

    @Test
    void pythonStyleJsonSeparatorsAndUnescapedUnicode() {
        var o = JsonNodeFactory.instance.objectNode();
        o.put("a", "é ✓ \"q\"\n").putArray("b");
        o.putObject("c");
        assertEquals("{\"a\": \"é ✓ \\\"q\\\"\\n\", \"b\": [], \"c\": {}}", ToolJson.compact(o));
        assertEquals("{\n  \"a\": \"é ✓ \\\"q\\\"\\n\",\n  \"b\": [],\n  \"c\": {}\n}", ToolJson.indented(o));
    }

    @Test
    void listingSortsByNameAndPercentAndMarksMissingToolsets() {
        var bytes = new java.io.ByteArrayOutputStream();
        DistributionListing.print(new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8),
                List.of(new Distribution("z", "last", Map.of("web", 5)), dist("web", 50, "vision", 90)),
                Set.of("web"));
        var text = bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(text.startsWith("📊 Available Toolset Distributions\n" + "=".repeat(70) + "\n\n📊 Distribution: d\n"), text);
        assertTrue(text.contains("     • vision          :  90% chance  (not available)\n     • web             :  50% chance\n"), text);
    }
}
