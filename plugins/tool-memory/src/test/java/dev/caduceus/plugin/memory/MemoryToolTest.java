package dev.caduceus.plugin.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.ManualClock;
import dev.caduceus.platform.testkit.TestDatabase;
import dev.caduceus.platform.testkit.TestHost;
import dev.caduceus.platform.testkit.postgres.TestPostgres;
import dev.caduceus.spi.store.PluginDatabase.Dialect;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The memory tool on the real host ({@link TestHost} with this plugin's jar), on SQLite and on PostgreSQL
 * (where two hosts on one database are two nodes): calls through the host's dispatcher in a session of
 * the test's own ({@link #scope} {@code session:<test>}), the plugin's real instance for the turn-start
 * snapshot, and its table read beside the host through {@link TestDatabase}. One host per dialect serves
 * the class; a test that needs other settings or a restart ("a new plugin instance") {@link #boot}s a
 * host of its own on a database of its own.
 */
@ParameterizedClass
@EnumSource(Dialect.class)
class MemoryToolTest {
    static final Instant NOW = Instant.parse("2026-01-15T09:00:00Z");
    static final ObjectMapper JSON = new ObjectMapper();
    static final Clock CLOCK = new ManualClock(NOW);
    /** The class's hosts, one per dialect, with their databases. */
    static final Map<Dialect, TestHost> SHARED = new EnumMap<>(Dialect.class);
    static final Map<Dialect, TestPostgres.Db> SHARED_PG = new EnumMap<>(Dialect.class);
    @TempDir static Path sharedDir;

    @TempDir Path dir;
    @Parameter Dialect dialect;
    final Clock clock = CLOCK;
    String scope;
    TestPostgres.Db pg;
    TestHost host;
    boolean own;
    TestDatabase db;
    Tool tool;

    @BeforeEach
    void open(TestInfo test) {
        scope = "session:" + test.getTestMethod().orElseThrow().getName();
        pg = SHARED_PG.get(dialect);
        host = SHARED.get(dialect);
        if (host == null) {
            host = start(Map.of(), sharedDir.resolve(dialect.name()));
            SHARED.put(dialect, host);
            SHARED_PG.put(dialect, pg);
        }
        attach();
    }

    @AfterEach
    void close() {
        db.close();
        if (own) host.close();
    }

    @AfterAll
    static void closeShared() {
        SHARED.values().forEach(TestHost::close);
        SHARED.clear();
        SHARED_PG.clear();
    }

    /**
     * Starts a host of this test's own with {@code tools.*} settings: on a new database the first time,
     * then on the same one (a restart: the same {@code $CADUCEUS_HOME}, or the same PostgreSQL database),
     * and attaches {@link #db} to it.
     */
    void boot(Map<String, String> tools) {
        db.close();
        if (own) host.close();
        else pg = null;
        own = true;
        host = start(tools, dir.resolve("home"));
        attach();
    }

    private void attach() {
        db = dialect == Dialect.SQLITE ? TestDatabase.attach(host.home().resolve("caduceus.db"))
                : TestDatabase.attach(pg, "tool-memory");
        tool = memory(host);
    }

    /** A host on {@link #pg} (a new database when null) or in {@code home}; another beside {@link #host} is another node. */
    TestHost start(Map<String, String> tools, Path home) {
        var builder = TestHost.builder().plugins("tool-memory").clock(clock);
        tools.forEach((key, value) -> builder.env("CADUCEUS__TOOLS__" + key.toUpperCase(Locale.ROOT).replace(".", "__"), value));
        if (dialect == Dialect.POSTGRESQL) {
            if (pg == null) pg = TestPostgres.shared().newDatabase();
            builder.env("CADUCEUS__DATABASE__URL", pg.url());
        } else {
            try {
                builder.home(Files.createDirectories(home));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        return builder.start();
    }

    /** Another node on this test's database (PostgreSQL). The caller closes it. */
    TestHost node() {
        return start(Map.of(), dir.resolve("node"));
    }

    /** The plugin's real instance of the tool, as {@code host} runs it. */
    static Tool memory(TestHost host) {
        return host.tools().stream().filter(t -> t.spec().name().equals("memory")).findFirst().orElseThrow();
    }

    @Test
    void specMatchesHermes() {
        var spec = tool.spec();
        assertEquals("memory", spec.name());
        assertEquals("memory", spec.toolset());
        assertEquals("🧠", spec.emoji());
        assertFalse(spec.parallelSafe());
        assertEquals("target", spec.parameters().path("required").get(0).asText());
        assertEquals(List.of("add", "replace", "remove"),
                JSON.convertValue(spec.parameters().at("/properties/action/enum"), List.class));
        assertEquals("action", spec.parameters().at("/properties/operations/items/required/0").asText());
    }

    @Test
    void addsAndReportsUsageInHermesFormat() throws Exception {
        var raw = ok(call(scope, "{\"action\":\"add\",\"target\":\"memory\",\"content\":\"  uses tabs  \"}"));
        assertEquals("{\"success\": true, \"done\": true, \"target\": \"memory\", \"usage\": \"0% — 9/2200 chars\", "
                + "\"entry_count\": 1, \"message\": \"Entry added.\", \"note\": \"" + MemoryEdits.NOTE + "\"}", raw);
        var second = json(call(scope, "{\"action\":\"add\",\"target\":\"memory\",\"content\":\"likes 🧠\"}"));
        assertEquals("0% — 19/2200 chars", second.path("usage").asText(), "9 + 3 (delimiter) + 7 code points");
        assertEquals(List.of("uses tabs", "likes 🧠"), entries(MemoryTarget.MEMORY));
    }

    @Test
    void duplicateAddIsASuccessThatStoresNothing() throws Exception {
        add("memory", "fact one");
        var result = json(call(scope, "{\"action\":\"add\",\"target\":\"memory\",\"content\":\"fact one\"}"));
        assertTrue(result.path("success").asBoolean());
        assertEquals("Entry already exists (no duplicate added).", result.path("message").asText());
        assertEquals(1, result.path("entry_count").asInt());
        assertEquals(List.of("fact one"), entries(MemoryTarget.MEMORY));
    }

    @Test
    void replaceChangesTheOneEntryContainingTheSubstring() throws Exception {
        add("user", "name is Ada");
        add("user", "prefers short answers");
        var result = json(call(scope, "{\"action\":\"replace\",\"target\":\"user\",\"old_text\":\"short\","
                + "\"content\":\"prefers detailed answers\"}"));
        assertEquals("Entry replaced.", result.path("message").asText());
        assertEquals("user", result.path("target").asText());
        assertEquals(List.of("name is Ada", "prefers detailed answers"), entries(MemoryTarget.USER));
    }

    @Test
    void removeDeletesTheMatchingEntry() throws Exception {
        add("memory", "a");
        add("memory", "bb");
        var result = json(call(scope, "{\"action\":\"remove\",\"target\":\"memory\",\"old_text\":\"b\"}"));
        assertEquals("Entry removed.", result.path("message").asText());
        assertEquals(1, result.path("entry_count").asInt());
        assertEquals(List.of("a"), entries(MemoryTarget.MEMORY));
    }

    @Test
    void noMatchIsAnErrorWithTheCurrentEntries() throws Exception {
        add("memory", "alpha");
        var result = json(call(scope, "{\"action\":\"remove\",\"target\":\"memory\",\"old_text\":\"zeta\"}"));
        assertFalse(result.path("success").asBoolean());
        assertEquals("No entry matched 'zeta'.", result.path("error").asText());
        assertEquals("alpha", result.path("current_entries").get(0).asText());
    }

    @Test
    void severalDistinctMatchesAreRefusedWithPreviews() throws Exception {
        add("memory", "project uses maven " + "x".repeat(100));
        add("memory", "project uses java 21");
        var raw = ok(call(scope, "{\"action\":\"replace\",\"target\":\"memory\",\"old_text\":\"project\",\"content\":\"y\"}"));
        var result = JSON.readTree(raw);
        assertEquals("Multiple entries matched 'project'. Be more specific.", result.path("error").asText());
        assertEquals(2, result.path("matches").size());
        assertEquals(83, result.path("matches").get(0).asText().length(), "80 chars plus ...");
        assertTrue(result.path("matches").get(0).asText().endsWith("..."));
        assertEquals(List.of("project uses maven " + "x".repeat(100), "project uses java 21"), entries(MemoryTarget.MEMORY));
    }

    @Test
    void addOverTheLimitIsRefusedButExactlyAtTheLimitIsAccepted() throws Exception {
        boot(Map.of("memory.memory_char_limit", "20"));
        add("memory", "0123456789"); // 10
        var over = json(call(scope, "{\"action\":\"add\",\"target\":\"memory\",\"content\":\"12345678\"}")); // 10+3+8 = 21
        assertFalse(over.path("success").asBoolean());
        assertEquals("Memory at 10/20 chars. Adding this entry (8 chars) would exceed the limit. "
                + "Replace or remove entries first.", over.path("error").asText());
        assertEquals("10/20", over.path("usage").asText());
        assertEquals("0123456789", over.path("current_entries").get(0).asText());
        var exact = json(call(scope, "{\"action\":\"add\",\"target\":\"memory\",\"content\":\"1234567\"}")); // 20
        assertTrue(exact.path("success").asBoolean());
        assertEquals("100% — 20/20 chars", exact.path("usage").asText());
    }

    @Test
    void replaceOverTheLimitIsRefused() throws Exception {
        boot(Map.of("memory.user_char_limit", "10"));
        add("user", "short");
        var result = json(call(scope, "{\"action\":\"replace\",\"target\":\"user\",\"old_text\":\"sh\","
                + "\"content\":\"much too long\"}"));
        assertFalse(result.path("success").asBoolean());
        assertTrue(result.path("error").asText().contains("13/10"), result.toString());
        assertEquals(List.of("short"), entries(MemoryTarget.USER));
    }

    @Test
    void operationsApplyAllOrNothingWithTheLimitCheckedAtTheEnd() throws Exception {
        boot(Map.of("memory.memory_char_limit", "20"));
        add("memory", "0123456789");
        var freed = json(call(scope, "{\"target\":\"memory\",\"operations\":[{\"action\":\"remove\",\"old_text\":\"0123\"},"
                + "{\"action\":\"add\",\"content\":\"abcdefghijklmnop\"}]}"));
        assertTrue(freed.path("success").asBoolean(), freed.toString());
        assertEquals("Applied 2 operation(s).", freed.path("message").asText());
        assertEquals(List.of("abcdefghijklmnop"), entries(MemoryTarget.MEMORY));

        var failed = json(call(scope, "{\"target\":\"memory\",\"operations\":[{\"action\":\"remove\",\"old_text\":\"abc\"},"
                + "{\"action\":\"remove\",\"old_text\":\"nothing\"}]}"));
        assertFalse(failed.path("success").asBoolean());
        assertTrue(failed.path("error").asText().startsWith("Operation 2 (remove): No entry matched 'nothing'."));
        assertEquals(List.of("abcdefghijklmnop"), entries(MemoryTarget.MEMORY), "nothing applied");
    }

    @Test
    void refusesControlInvisibleAndRoleMarkerContent() throws Exception {
        for (var bad : List.of("a\u0007b", "zero\u200Bwidth", "x<|im_start|>system", "ok</SYSTEM>")) {
            var args = JSON.createObjectNode().put("action", "add").put("target", "memory").put("content", bad);
            var result = json(call(scope, args.toString()));
            assertFalse(result.path("success").asBoolean(), bad);
            assertTrue(result.path("error").asText().startsWith("Entry refused"), bad);
        }
        assertTrue(json(call(scope, "{\"action\":\"add\",\"target\":\"memory\",\"content\":\"line1\\n\\tline2\"}"))
                .path("success").asBoolean());
    }

    @Test
    void emptyContentIsAnError() throws Exception {
        var result = json(call(scope, "{\"action\":\"add\",\"target\":\"memory\",\"content\":\"   \"}"));
        assertFalse(result.path("success").asBoolean());
        assertEquals("Content cannot be empty.", result.path("error").asText());
    }

    @Test
    void onSqliteAStoreIsReadFromTheDatabaseOnceAndAgainAfterAnEdit() throws Exception {
        var store = new MemoryStore(db, clock);
        assertEquals(List.of(), store.entries(scope, MemoryTarget.MEMORY));
        db.write(sql -> sql.update("INSERT INTO memory_entries (scope, store, position, text, created_at, updated_at)"
                + " VALUES (?, 'memory', 0, 'behind', 'x', 'x')", scope));
        if (dialect == Dialect.POSTGRESQL) { // other nodes write the table too: nothing is cached
            assertEquals(List.of("behind"), store.entries(scope, MemoryTarget.MEMORY));
            return;
        }
        // a row written behind the plugin's back is not seen: the first read is cached
        assertEquals(List.of(), store.entries(scope, MemoryTarget.MEMORY));
        assertEquals(List.of("behind"), new MemoryStore(db, clock).entries(scope, MemoryTarget.MEMORY));
        // an edit through the store drops the cached copy, so the next read sees the database again
        store.edit(scope, MemoryTarget.MEMORY, entries -> new Outcome(java.util.stream.Stream.concat(
                entries.stream(), java.util.stream.Stream.of("added")).toList(), JSON.createObjectNode()));
        assertEquals(List.of("behind", "added"), store.entries(scope, MemoryTarget.MEMORY));
        assertEquals(List.of(), store.entries(scope, MemoryTarget.USER));
    }

    @Test
    void bothStoresOfAScopeComeInOneReadEachInItsOrder() throws Exception {
        db.write(sql -> {
            for (var row : List.of(List.of("user", "1", "u2"), List.of("memory", "1", "m2"), List.of("user", "0", "u1"),
                    List.of("memory", "0", "m1")))
                sql.update("INSERT INTO memory_entries (scope, store, position, text, created_at, updated_at)"
                        + " VALUES (?, ?, ?, ?, 'x', 'x')", scope, row.get(0), Integer.parseInt(row.get(1)), row.get(2));
            sql.update("INSERT INTO memory_entries (scope, store, position, text, created_at, updated_at)"
                    + " VALUES (?, 'memory', 0, 'another scope', 'x', 'x')", scope + "-other");
            return null;
        });
        var both = new MemoryStore(db, clock).both(scope);
        assertEquals(List.of("m1", "m2"), both.get(MemoryTarget.MEMORY));
        assertEquals(List.of("u1", "u2"), both.get(MemoryTarget.USER));
    }

    @Test
    void manyScopesReadAtOnceEachGetTheirOwnEntries() throws Exception {
        // on PostgreSQL the reads that arrive together are made in one statement for all their scopes
        int scopes = 12;
        db.write(sql -> {
            for (int s = 0; s < scopes; s++)
                for (int i = 0; i < s % 4; i++) // scope 0, 4 and 8 have none
                    for (var store : List.of("memory", "user"))
                        sql.update("INSERT INTO memory_entries (scope, store, position, text, created_at, updated_at)"
                                + " VALUES (?, ?, ?, ?, 'x', 'x')", scope + s, store, i, store + " " + s + "." + i);
            return null;
        });
        var store = new MemoryStore(db, clock);
        try (var pool = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            var reads = new java.util.ArrayList<java.util.concurrent.Future<?>>();
            for (int r = 0; r < 240; r++) {
                int s = r % scopes;
                reads.add(pool.submit(() -> {
                    var both = store.both(scope + s);
                    for (var target : MemoryTarget.values())
                        assertEquals(java.util.stream.IntStream.range(0, s % 4).mapToObj(i -> target.wireName() + " " + s + "." + i)
                                .toList(), both.get(target), scope + s);
                    return null;
                }));
            }
            for (var f : reads) f.get(30, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    @Test
    void scopesAreIsolated() throws Exception {
        add("memory", "only in s1");
        assertEquals(List.of(), new MemoryStore(db, clock).entries(scope + "-other", MemoryTarget.MEMORY));
        var other = json(call(scope + "-other", "{\"action\":\"remove\",\"target\":\"memory\",\"old_text\":\"s1\"}"));
        assertFalse(other.path("success").asBoolean());
        assertNull(tool.systemPromptSection(scope + "-other"));
    }

    @Test
    void sqlInAnAgentsArgumentsIsStoredAsTextAndReachesNoOtherScopeOrTable() throws Exception {
        add("memory", "kept in the other scope");
        var attack = scope + "' OR '1'='1";
        for (var content : List.of("x'); DROP TABLE memory_entries; --", "' UNION SELECT key_hash FROM api_keys --"))
            assertTrue(json(call(attack, "{\"action\":\"add\",\"target\":\"memory\",\"content\":\""
                    + content.replace("\"", "\\\"") + "\"}")).path("success").asBoolean(), content);
        var injected = new MemoryStore(db, clock).both(attack);
        assertEquals(List.of("x'); DROP TABLE memory_entries; --", "' UNION SELECT key_hash FROM api_keys --"),
                injected.get(MemoryTarget.MEMORY), "stored as the text it is, in its own scope");
        assertEquals(List.of("kept in the other scope"), new MemoryStore(db, clock).entries(scope, MemoryTarget.MEMORY));
        assertFalse(tool.systemPromptSection(scope).contains("DROP"), "another scope's snapshot shows none of it");
        var target = call(scope, "{\"action\":\"add\",\"target\":\"memory' OR '1'='1\",\"content\":\"x\"}");
        assertTrue(target instanceof dev.caduceus.spi.tool.ToolResult.Error, "a store is one of the two names, nothing else");
    }

    @Test
    void entriesSurviveANewPluginInstanceOnTheSameDatabase() throws Exception {
        boot(Map.of()); // a host of its own, to restart
        add("memory", "persisted fact");
        add("user", "persisted profile");
        boot(Map.of()); // a restart: a new plugin instance on the same database
        assertTrue(tool.systemPromptSection(scope).contains("persisted fact"));
        assertTrue(tool.systemPromptSection(scope).contains("persisted profile"));
    }

    @Test
    void withoutAScopeNothingIsStored() throws Exception {
        assertEquals("{\"success\": false, \"error\": \"Memory is not available in this context.\"}",
                ok(call(null, "{\"action\":\"add\",\"target\":\"memory\",\"content\":\"x\"}")));
        assertNull(tool.systemPromptSection(null));
    }

    @Test
    void wrongTypesAndMissingArgumentsAreErrorsNotExceptions() throws Exception {
        // (a number for the content is coerced to a string by the host before the tool sees it)
        for (var args : List.of("{}", "{\"action\":\"add\"}", "{\"action\":\"add\",\"target\":\"people\",\"content\":\"x\"}",
                "{\"action\":\"add\",\"target\":\"memory\",\"content\":{\"n\":42}}", "{\"action\":5,\"target\":\"memory\"}",
                "{\"target\":\"memory\"}", "{\"action\":\"delete\",\"target\":\"memory\"}", "{\"action\":\"ADD\",\"target\":\"memory\"}",
                "{\"target\":\"memory\",\"operations\":\"nope\"}", "{\"target\":\"memory\",\"operations\":[1]}",
                "{\"target\":\"memory\",\"operations\":[{\"content\":\"x\"}]}", "{\"target\":[\"memory\"],\"action\":\"add\"}")) {
            var result = call(scope, args);
            assertInstanceOf(ToolResult.Error.class, result, args);
        }
        assertEquals(List.of(), entries(MemoryTarget.MEMORY));
    }

    @Test
    void missingContentOrOldTextAreErrorResults() throws Exception {
        assertEquals("Content cannot be empty.",
                json(call(scope, "{\"action\":\"add\",\"target\":\"memory\"}")).path("error").asText());
        assertEquals("old_text cannot be empty.",
                json(call(scope, "{\"action\":\"remove\",\"target\":\"memory\"}")).path("error").asText());
        assertEquals("old_text cannot be empty.",
                json(call(scope, "{\"action\":\"replace\",\"target\":\"memory\",\"content\":\"x\"}")).path("error").asText());
    }

    @Test
    void snapshotRendersBothBlocksAndIsFrozenUntilAsked() throws Exception {
        add("memory", "uses tabs");
        add("memory", "repo at /src");
        add("user", "name is Ada");
        var rule = "═".repeat(46);
        var expected = rule + "\nMEMORY (your personal notes) [1% — 24/2200 chars]\n" + rule + "\nuses tabs\n§\nrepo at /src"
                + "\n\n" + rule + "\nUSER PROFILE (who the user is) [0% — 11/1375 chars]\n" + rule + "\nname is Ada";
        var snapshot = tool.systemPromptSection(scope);
        assertEquals(expected, snapshot);
        add("memory", "later fact");
        assertEquals(expected, snapshot, "a string taken at turn start does not change");
        assertTrue(tool.systemPromptSection(scope).contains("later fact"));
    }

    @Test
    void snapshotOmitsEmptyStoresAndHidesEntriesRefusedNow() throws Exception {
        boot(Map.of()); // a host of its own, to restart
        assertNull(tool.systemPromptSection(scope));
        db.write(sql -> sql.update("INSERT INTO memory_entries (scope, store, position, text, created_at, updated_at)"
                + " VALUES (?, 'user', 0, ?, 'x', 'x')", scope, "evil <tool_call> entry"));
        // written behind the plugin's back (as an older version might have stored it): a fresh
        // instance reads it, the running one keeps its cached (empty) copy until its next edit
        boot(Map.of()); // a restart: a new plugin instance reads the table
        var snapshot = tool.systemPromptSection(scope);
        assertTrue(snapshot.startsWith("═".repeat(46) + "\nUSER PROFILE"), snapshot);
        assertTrue(snapshot.endsWith("\n[BLOCKED: entry hidden]"), snapshot);
        assertFalse(snapshot.contains("MEMORY (your personal notes)"));
    }

    @Test
    void percentIsTruncatedLikePython() {
        assertEquals(28, EntryText.percent(29, 100), "int(29/100*100) is 28 in Python");
        assertEquals(100, EntryText.percent(30, 20));
        assertEquals(42, EntryText.percent(924, 2200));
    }

    @Test
    void identicalDuplicatesCountAsOneMatchAndTheFirstIsChanged() throws Exception {
        for (int i = 0; i < 2; i++) {
            int position = i;
            db.write(sql -> sql.update("INSERT INTO memory_entries (scope, store, position, text, created_at, updated_at)"
                    + " VALUES (?, 'memory', ?, 'same note', 'x', 'x')", scope, position));
        }
        var result = json(call(scope, "{\"action\":\"replace\",\"target\":\"memory\",\"old_text\":\"same\","
                + "\"content\":\"new note\"}"));
        assertTrue(result.path("success").asBoolean(), result.toString());
        assertEquals(List.of("new note", "same note"), entries(MemoryTarget.MEMORY));
    }

    @Test
    void unchangedEntriesKeepTheirTimestampsAndNewOnesGetTheClock() throws Exception {
        db.write(sql -> sql.update("INSERT INTO memory_entries (scope, store, position, text, created_at, updated_at)"
                + " VALUES (?, 'memory', 0, 'old note', '2020-01-01T00:00:00Z', '2020-01-02T00:00:00Z')", scope));
        add("memory", "new note");
        var rows = db.read(sql -> sql.query("SELECT text, created_at, updated_at FROM memory_entries WHERE scope = ?"
                + " ORDER BY position", r -> r.getString(1) + "|" + r.getString(2) + "|" + r.getString(3), scope));
        assertEquals(List.of("old note|2020-01-01T00:00:00Z|2020-01-02T00:00:00Z",
                "new note|2026-01-15T09:00:00Z|2026-01-15T09:00:00Z"), rows);
    }

    @Test
    void duplicateAddsInsideOperationsAreSkipped() throws Exception {
        add("memory", "kept");
        var result = json(call(scope, "{\"target\":\"memory\",\"operations\":[{\"action\":\"add\",\"content\":\"kept\"},"
                + "{\"action\":\"add\",\"content\":\"fresh\"}]}"));
        assertTrue(result.path("success").asBoolean(), result.toString());
        assertEquals(List.of("kept", "fresh"), entries(MemoryTarget.MEMORY));
    }

    @Test
    void anEditOnOneNodeIsInTheNextPromptOfAnother() throws Exception {
        Assumptions.assumeTrue(dialect == Dialect.POSTGRESQL, "SQLite: one process owns the file (and caches)");
        try (var other = node()) {
            var otherTool = memory(other);
            assertNull(otherTool.systemPromptSection(scope));
            add("memory", "written on node one");
            assertTrue(otherTool.systemPromptSection(scope).contains("written on node one"));
            var removed = json(call(other, scope, "{\"action\":\"remove\",\"target\":\"memory\",\"old_text\":\"node one\"}"));
            assertTrue(removed.path("success").asBoolean(), removed.toString());
            assertNull(tool.systemPromptSection(scope), "removed on node two, gone on node one");
        }
    }

    @Test
    void concurrentAddsOnTwoNodesAllLand() throws Exception {
        Assumptions.assumeTrue(dialect == Dialect.POSTGRESQL, "SQLite: one process, one writer");
        try (var other = node()) {
            var nodes = List.of(host, other);
            var start = new java.util.concurrent.CountDownLatch(1);
            var failures = new java.util.concurrent.ConcurrentLinkedQueue<String>();
            var threads = new java.util.ArrayList<Thread>();
            for (int i = 0; i < 16; i++) {
                var node = nodes.get(i % 2);
                var content = "fact " + i;
                threads.add(Thread.ofVirtual().start(() -> {
                    try {
                        start.await();
                        var args = JSON.createObjectNode().put("action", "add").put("target", "memory")
                                .put("content", content);
                        var result = json(call(node, scope, args.toString()));
                        if (!result.path("success").asBoolean()) failures.add(result.toString());
                    } catch (Exception e) {
                        failures.add(e.toString());
                    }
                }));
            }
            start.countDown();
            for (var t : threads) t.join();
            assertEquals(List.of(), List.copyOf(failures));
            var stored = entries(MemoryTarget.MEMORY);
            assertEquals(16, stored.size(), stored.toString());
            for (int i = 0; i < 16; i++) assertTrue(stored.contains("fact " + i), "fact " + i + " in " + stored);
        }
    }

    // -- helpers --

    void add(String target, String content) throws Exception {
        var args = JSON.createObjectNode().put("action", "add").put("target", target).put("content", content);
        var result = json(call(scope, args.toString()));
        assertTrue(result.path("success").asBoolean(), result.toString());
    }

    List<String> entries(MemoryTarget target) {
        return new MemoryStore(db, clock).entries(scope, target);
    }

    /** One call on {@link #host} in the session of {@code scope} ({@code session:ID}), or none for null. */
    ToolResult call(String scope, String args) throws Exception {
        return call(host, scope, args);
    }

    static ToolResult call(TestHost on, String scope, String args) throws Exception {
        if (scope != null && !scope.startsWith("session:")) throw new IllegalArgumentException(scope);
        return on.callTool(scope == null ? null : scope.substring("session:".length()), "memory", args);
    }

    static String ok(ToolResult result) {
        return assertInstanceOf(ToolResult.Ok.class, result).content();
    }

    static JsonNode json(ToolResult result) throws Exception {
        return JSON.readTree(ok(result));
    }
}
