package dev.caduceus.plugin.responses;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.http.Caller;
import dev.caduceus.spi.http.HttpHandler;
import dev.caduceus.spi.http.Routes;
import dev.caduceus.testkit.FakeExchange;
import dev.caduceus.testkit.FakePlatformContext;
import dev.caduceus.testkit.RecordingEventStream;
import dev.caduceus.testkit.ScriptedRuns;
import dev.caduceus.testkit.TestDatabase;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The responses plugin wired to scripted runs, a real SQLite test database and the fixed test clock.
 * Requests are sent as the admin key unless {@link #as} names another caller.
 */
final class ResponsesFixture {
    static final Usage USAGE = new Usage(1830, 95, 1925);
    static final long CREATED = 1768467600L; // 2026-01-15T09:00:00Z, the testkit's clock

    final ScriptedRuns runs = new ScriptedRuns();
    final TestDatabase db;
    final FakePlatformContext ctx;
    final ResponsesPlugin plugin = new ResponsesPlugin();
    final ResponsesFamily family;
    final Map<String, HttpHandler> handlers = new HashMap<>();
    private Caller caller = Caller.ADMIN_CALLER;

    ResponsesFixture(TestDatabase db) {
        this(db, Map.of());
    }

    ResponsesFixture(TestDatabase db, Map<String, String> sections) {
        this.db = db;
        ctx = FakePlatformContext.builder("endpoint-responses").runs(runs).database(db).sections(sections).build();
        plugin.start(ctx);
        family = (ResponsesFamily) plugin.endpoints(ctx).getFirst();
        family.routes(new Routes() {
            @Override
            public Routes route(String method, String template, String name, HttpHandler h) {
                handlers.put(method + " " + template, h);
                return this;
            }
        });
    }

    /** Sends the following requests as {@code who} (a named key, or {@link Caller#ADMIN_CALLER}). */
    ResponsesFixture as(Caller who) {
        caller = who;
        return this;
    }

    FakeExchange post(String body, String... headers) throws Exception {
        return exchange(body, headers).call(handlers.get("POST /v1/responses"));
    }

    FakeExchange exchange(String body, String... headers) {
        var ex = new FakeExchange(ctx.json(), "POST", "/v1/responses").body(body).caller(caller);
        for (int i = 0; i < headers.length; i += 2) ex.requestHeader(headers[i], headers[i + 1]);
        return ex;
    }

    FakeExchange get(String id, String... query) throws Exception {
        var ex = new FakeExchange(ctx.json(), "GET", "/v1/responses/" + id).pathParam("response_id", id).caller(caller);
        for (int i = 0; i < query.length; i += 2) ex.queryParam(query[i], query[i + 1]);
        return ex.call(handlers.get("GET /v1/responses/{response_id}"));
    }

    FakeExchange inputItems(String id, String... query) throws Exception {
        var ex = new FakeExchange(ctx.json(), "GET", "/v1/responses/" + id + "/input_items").pathParam("response_id", id)
                .caller(caller);
        for (int i = 0; i < query.length; i += 2) ex.queryParam(query[i], query[i + 1]);
        return ex.call(handlers.get("GET /v1/responses/{response_id}/input_items"));
    }

    FakeExchange delete(String id) throws Exception {
        return new FakeExchange(ctx.json(), "DELETE", "/v1/responses/" + id).pathParam("response_id", id)
                .caller(caller).call(handlers.get("DELETE /v1/responses/{response_id}"));
    }

    RunRequest lastRequest() {
        return runs.requests().getLast();
    }

    ResponsesFixture answers(String output) {
        runs.script(ScriptedRuns.Script.of(RunResult.completed(output, USAGE, List.of(Message.assistant(output))),
                new RunEvent.TextDelta(output)));
        return this;
    }

    ResponsesFixture ends(StopReason reason, String output, String error) {
        runs.script(ScriptedRuns.Script.of(RunResult.of(reason, output, USAGE, "agent_error", error, List.of())));
        return this;
    }

    /** A turn with one terminal tool call: text before it, the call, its result, text after it. */
    ResponsesFixture answersWithTool() {
        var args = JsonNodeFactory.instance.objectNode().put("command", "ls");
        var messages = List.of(
                new Message("assistant", List.of(), List.of(new Message.ToolCallRef("call_1", "terminal", args)), null,
                        null),
                new Message("tool", List.of(new dev.caduceus.spi.message.ContentPart.Text("README.md src")), List.of(),
                        "call_1", "terminal"),
                Message.assistant("Let me look. There are 2 entries."));
        runs.script(ScriptedRuns.Script.of(RunResult.completed("Let me look. There are 2 entries.", USAGE, messages),
                new RunEvent.Started("m"), new RunEvent.TextDelta("Let me look."),
                new RunEvent.ToolCallStarted("call_1", "terminal", args, "ls", "💻"),
                new RunEvent.ToolCallFinished("call_1", "terminal", 12, false, "README.md src"),
                new RunEvent.TextDelta(" There are 2 entries.")));
        return this;
    }

    JsonNode json(String text) throws Exception {
        return ctx.json().readTree(text);
    }

    /** Event names of the recorded frames. */
    static List<String> names(RecordingEventStream stream) {
        var names = new ArrayList<String>();
        for (var f : stream.frames()) if (f.kind().equals("event")) names.add(f.name());
        return names;
    }

    static List<JsonNode> data(RecordingEventStream stream) {
        var data = new ArrayList<JsonNode>();
        for (var f : stream.frames()) if (f.kind().equals("event")) data.add(f.data());
        return data;
    }

    static String texts(List<Message> messages) {
        var sb = new StringBuilder();
        for (var m : messages) sb.append(m.role()).append(':').append(m.text()).append('|');
        return sb.toString();
    }
}
