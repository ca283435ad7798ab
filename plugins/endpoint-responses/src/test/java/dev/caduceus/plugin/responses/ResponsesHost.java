package dev.caduceus.plugin.responses;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.HostClient;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.SseStream;
import dev.caduceus.platform.testkit.TestHost;
import dev.caduceus.platform.testkit.Turn;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The responses plugin on the real host ({@link TestHost}: real run service, agent loop, provider and
 * SQLite store), its model a {@link ScriptedUpstream}. What the plugin handed the run is read where it
 * ends up, in the model's recorded request. Test methods of one class share a host and run one at a
 * time, each {@link #reset()}ting the upstream's queue first. Lifecycle: {@link #start}, {@link #close}
 * (which leaves a home given to {@link #start(Path, String...)}).
 */
final class ResponsesHost implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String PATH = "/v1/responses";
    static final int PROMPT_TOKENS = 1830;
    static final int COMPLETION_TOKENS = 95;

    final ScriptedUpstream upstream;
    final TestHost host;
    private final HostClient client;

    private ResponsesHost(ScriptedUpstream upstream, TestHost host, HostClient client) {
        this.upstream = upstream;
        this.host = host;
        this.client = client;
    }

    /** A host in a new home with {@code env} (name, value, …). */
    static ResponsesHost start(String... env) {
        return start(null, env);
    }

    /** A host on {@code home} (null: a new one), e.g. another host's, to play a restart or a second process. */
    static ResponsesHost start(Path home, String... env) {
        return start(builder -> {
            if (home != null) builder.home(home);
            for (int i = 0; i < env.length; i += 2) builder.env(env[i], env[i + 1]);
            return builder;
        });
    }

    /** A host with more builder settings ({@code b -> b.clock(…).env(…)}), e.g. another node on a PostgreSQL database. */
    static ResponsesHost start(java.util.function.UnaryOperator<TestHost.Builder> more) {
        return start(upstream -> { }, more);
    }

    /**
     * A host on {@code home} whose upstream has its turns from {@code script} before the host starts (a run resumed at
     * start calls it at once).
     */
    static ResponsesHost start(Path home, java.util.function.Consumer<ScriptedUpstream> script, String... env) {
        return start(script, builder -> {
            builder.home(home);
            for (int i = 0; i < env.length; i += 2) builder.env(env[i], env[i + 1]);
            return builder;
        });
    }

    private static ResponsesHost start(java.util.function.Consumer<ScriptedUpstream> script,
                                       java.util.function.UnaryOperator<TestHost.Builder> more) {
        var upstream = ScriptedUpstream.start();
        try {
            script.accept(upstream);
            var host = more.apply(TestHost.builder().plugins("endpoint-responses", "provider-openai").model(upstream))
                    .start();
            return new ResponsesHost(upstream, host, host.http());
        } catch (RuntimeException e) {
            upstream.close();
            throw e;
        }
    }

    /** The client the requests below go through: the admin key's, or the key {@link #as} names. */
    HostClient http() {
        return client;
    }

    /** The same host, its requests sent with {@code key} (a named key from {@code host.addKey}); not to be closed. */
    ResponsesHost as(String key) {
        return new ResponsesHost(upstream, host, host.http().withKey(key));
    }

    /** Runs {@code sql} on the host's database, as another process (or an older version) would. */
    void sql(String sql, Object... args) throws java.sql.SQLException {
        try (var db = java.sql.DriverManager.getConnection("jdbc:sqlite:" + host.home().resolve("caduceus.db"));
             var statement = db.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) statement.setObject(i + 1, args[i]);
            statement.executeUpdate();
        }
    }

    /** The first column of {@code sql}'s rows on the host's database, as strings. */
    List<String> rows(String sql, Object... args) throws java.sql.SQLException {
        try (var db = java.sql.DriverManager.getConnection("jdbc:sqlite:" + host.home().resolve("caduceus.db"));
             var statement = db.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) statement.setObject(i + 1, args[i]);
            try (var rows = statement.executeQuery()) {
                var values = new ArrayList<String>();
                while (rows.next()) values.add(rows.getString(1));
                return values;
            }
        }
    }

    long count(String table) throws java.sql.SQLException {
        return Long.parseLong(rows("SELECT COUNT(*) FROM " + table).getFirst());
    }

    /**
     * The plugin's {@link StoredHistory} (what other plugins find as {@code ctx.service(ResponseHistory.class)})
     * over this host's store, opened beside the host as a second process would; close it before the host.
     */
    History history() {
        var db = dev.caduceus.platform.testkit.TestDatabase.attach(host.home().resolve("caduceus.db"));
        return new History(new StoredHistory(new ResponseStore(db, JSON, Integer.MAX_VALUE, java.time.Clock.systemUTC())), db);
    }

    /** A {@link StoredHistory} and the database connection it reads through. */
    record History(dev.caduceus.support.services.ResponseHistory service, dev.caduceus.platform.testkit.TestDatabase db)
            implements AutoCloseable {
        java.util.Optional<dev.caduceus.support.services.ResponseHistory.Conversation> load(String owner, String id) {
            return service.load(owner, id);
        }

        @Override
        public void close() {
            db.close();
        }
    }

    /** {@code role:text|…} of stored messages, as {@link #lastModelTexts} shows the model's. */
    static String texts(List<dev.caduceus.spi.message.Message> messages) {
        var sb = new StringBuilder();
        for (var m : messages) sb.append(m.role()).append(':').append(m.text()).append('|');
        return sb.toString();
    }

    /** The id of a create: a plain one's body, a streamed one's first event; fails on any status but 200. */
    String create(String body, String... headers) throws IOException {
        if (body.contains("\"stream\":true")) return stream(body, headers).getFirst().data().get("response").get("id").asText();
        var ex = post(body, headers);
        if (ex.status() != 200) throw new AssertionError(ex.status() + " " + ex.body());
        return ex.json().get("id").asText();
    }

    void reset() {
        upstream.clearQueue();
    }

    /** Queues a plain answer with the test usage. */
    ResponsesHost answers(String text) {
        upstream.enqueue(Turn.text(text).usage(PROMPT_TOKENS, COMPLETION_TOKENS));
        return this;
    }

    /**
     * Queues a turn with one {@code terminal} call ({@code ls}) between two texts. No plugin offers
     * that tool, so its output is the runtime's unknown-tool error, {@link #UNKNOWN_TERMINAL}.
     */
    ResponsesHost answersWithTool() {
        upstream.enqueue(Turn.textChunks("Let me look.").withToolCalls(Turn.ToolCall.of("call_1", "terminal",
                "{\"command\":\"ls\"}")), Turn.textChunks("There are 2 entries.").usage(PROMPT_TOKENS, COMPLETION_TOKENS));
        return this;
    }

    /** The output of a {@code terminal} call on this host, which offers no tools. */
    static final String UNKNOWN_TERMINAL = "{\"error\": \"Unknown tool: terminal. Available tools: \"}";

    HostClient.Response post(String body, String... headers) {
        return http().post(PATH, body, headers);
    }

    /** A streaming create, read frame by frame. */
    SseStream postStream(String body, String... headers) {
        return http().postSse(PATH, body, headers);
    }

    /** A streaming create read to its end: its event frames. */
    List<SseStream.Frame> stream(String body, String... headers) throws IOException {
        try (var sse = postStream(body, headers)) {
            if (sse.status() != 200) throw new AssertionError(sse.status() + " " + sse.body());
            return sse.rest();
        }
    }

    HostClient.Response get(String id, String... query) {
        return http().get(PATH + "/" + id + query(query));
    }

    /** {@code GET /v1/responses/{id}?stream=true…} (a replay) read to its end. */
    List<SseStream.Frame> replay(String id, String... query) throws IOException {
        try (var sse = http().sse(PATH + "/" + id + query(query))) {
            if (sse.status() != 200) throw new AssertionError(sse.status() + " " + sse.body());
            return sse.rest();
        }
    }

    HostClient.Response inputItems(String id, String... query) {
        return http().get(PATH + "/" + id + "/input_items" + query(query));
    }

    HostClient.Response delete(String id) {
        return http().delete(PATH + "/" + id);
    }

    private static String query(String... pairs) {
        var sb = new StringBuilder();
        for (int i = 0; i < pairs.length; i += 2)
            sb.append(i == 0 ? '?' : '&').append(pairs[i]).append('=').append(pairs[i + 1]);
        return sb.toString();
    }

    /**
     * Sends {@code body} as a non-streaming create on a raw socket and returns the socket, so that the
     * test can hang up while the host works (closing it is the client leaving).
     */
    java.net.Socket postRaw(String body) throws IOException {
        var socket = new java.net.Socket(host.baseUrl().getHost(), host.baseUrl().getPort());
        socket.setSoTimeout(10_000);
        var bytes = body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        var head = "POST " + PATH + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + host.apiKey()
                + "\r\nContent-Type: application/json\r\nContent-Length: " + bytes.length + "\r\n\r\n";
        var out = socket.getOutputStream();
        out.write(head.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        out.write(bytes);
        out.flush();
        return socket;
    }

    /** The first answer to {@code body} that says 503 while the host drains ({@link TestHost#answerWhileDraining}). */
    java.net.http.HttpResponse<String> answerWhileDraining(String body) throws Exception {
        var held = new dev.caduceus.platform.testkit.HeldTurn(Turn.text("finishing"));
        upstream.enqueue(held);
        return host.answerWhileDraining(held, PATH, "{\"input\":\"hi\"}", body, this::close);
    }

    int modelCalls() {
        return upstream.chatRequests().size();
    }

    /** The body of the model's latest request. */
    JsonNode lastModelRequest() {
        return upstream.chatRequests().getLast().body();
    }

    /** The latest model request's messages after the system prompt. */
    JsonNode lastModelMessages() {
        var all = lastModelRequest().path("messages");
        var rest = JSON.createArrayNode();
        for (int i = 1; i < all.size(); i++) rest.add(all.get(i));
        return rest;
    }

    /** Those messages as {@code role:text|…}. */
    String lastModelTexts() {
        var sb = new StringBuilder();
        for (var m : lastModelMessages()) sb.append(m.path("role").asText()).append(':').append(m.path("content").asText()).append('|');
        return sb.toString();
    }

    String lastSystemPrompt() {
        var first = lastModelRequest().path("messages").path(0);
        if (!first.path("role").asText().equals("system")) throw new AssertionError("no system prompt: " + first);
        return first.path("content").asText();
    }

    int activeRuns() {
        return http().get("/health/detailed").json().path("active_agents").asInt();
    }

    void awaitNoActiveRun(String what) throws InterruptedException {
        Eventually.await(Duration.ofSeconds(10), what, () -> activeRuns() == 0);
    }

    static List<String> names(List<SseStream.Frame> frames) {
        var names = new ArrayList<String>();
        for (var f : frames) names.add(f.event());
        return names;
    }

    static List<JsonNode> data(List<SseStream.Frame> frames) {
        var data = new ArrayList<JsonNode>();
        for (var f : frames) data.add(f.data());
        return data;
    }

    static List<String> types(List<JsonNode> data) {
        return data.stream().map(d -> d.get("type").asText()).toList();
    }

    @Override
    public void close() {
        try {
            host.close();
        } finally {
            upstream.close();
        }
    }
}
