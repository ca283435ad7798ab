package dev.caduceus.plugin.chat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.http.HttpHandler;
import dev.caduceus.spi.http.Routes;
import dev.caduceus.testkit.FakeExchange;
import dev.caduceus.testkit.FakePlatformContext;
import dev.caduceus.testkit.FakeSessions;
import dev.caduceus.testkit.RecordingEventStream;
import dev.caduceus.testkit.ScriptedRuns;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The chat plugin wired to a scripted run service, a fake session store and the fixed test clock. */
final class ChatFixture {
    static final Usage USAGE = new Usage(1830, 95, 1925);
    static final long CREATED = 1768467600L; // 2026-01-15T09:00:00Z, the testkit's clock

    final ScriptedRuns runs = new ScriptedRuns();
    final FakeSessions sessions = new FakeSessions();
    final FakePlatformContext ctx;
    final ChatFamily family;
    final HttpHandler handler;

    ChatFixture() {
        this(Map.of());
    }

    ChatFixture(Map<String, String> config) {
        this(config, Map.of(), null);
    }

    /** With {@code sections} settings ({@code chat.housekeeping -> agent}) and plain model calls. */
    ChatFixture(Map<String, String> config, Map<String, String> sections, dev.caduceus.spi.model.Models models) {
        var all = new java.util.HashMap<>(config);
        all.putAll(sections);
        ctx = FakePlatformContext.builder("endpoint-chat").globalConfig(config).sections(all).models(models)
                .runs(runs).sessions(sessions).build();
        family = (ChatFamily) new ChatPlugin().endpoints(ctx).getFirst();
        var handlers = new ArrayList<HttpHandler>();
        family.routes(new Routes() {
            @Override
            public Routes route(String method, String template, String name, HttpHandler h) {
                if (!method.equals("POST") || !template.equals("/v1/chat/completions") || !name.equals("chat_completions"))
                    throw new AssertionError("unexpected route " + method + " " + template + " " + name);
                handlers.add(h);
                return this;
            }
        });
        handler = handlers.getFirst();
    }

    FakeExchange exchange(String body, String... headers) {
        var ex = new FakeExchange(ctx.json(), "POST", "/v1/chat/completions").body(body);
        for (int i = 0; i < headers.length; i += 2) ex.requestHeader(headers[i], headers[i + 1]);
        return ex;
    }

    FakeExchange post(String body, String... headers) throws Exception {
        return exchange(body, headers).call(handler);
    }

    RunRequest lastRequest() {
        return runs.requests().getLast();
    }

    ChatFixture answers(String output) {
        runs.script(ScriptedRuns.Script.of(RunResult.completed(output, USAGE, List.of()), new RunEvent.TextDelta(output)));
        return this;
    }

    ChatFixture ends(StopReason reason, String output, String errorCode, String error) {
        runs.script(ScriptedRuns.Script.of(RunResult.of(reason, output, USAGE, errorCode, error, List.of())));
        return this;
    }

    JsonNode json(String text) throws Exception {
        return ctx.json().readTree(text);
    }

    /** The frames as wire text, with the random completion id replaced by {@code chatcmpl-ID}. */
    static List<String> wire(RecordingEventStream stream) {
        var lines = new ArrayList<String>();
        for (var f : stream.frames()) {
            var line = switch (f.kind()) {
                case "event" -> (f.name() == null ? "" : "event: " + f.name() + " ") + "data: " + f.data();
                case "data" -> "data: " + f.text();
                default -> ": " + f.text();
            };
            lines.add(line.replaceAll("chatcmpl-[0-9a-f]{29}", "chatcmpl-ID"));
        }
        return lines;
    }

    static final String USER_HI = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
}
