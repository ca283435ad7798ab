package dev.caduceus.platform.runtime.agent;

import dev.caduceus.platform.runtime.journal.InMemoryEventLog;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.host.json.Json;
import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunHandle;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.model.ModelOptions;
import dev.caduceus.spi.model.ModelProvider;
import dev.caduceus.spi.tool.Tool;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Builds a {@link LocalAgentRuntime} behind a {@link RunService} for tests. */
final class Harness {
    static final ObjectMapper JSON = Json.newMapper();
    static final RetryPolicy FAST = new RetryPolicy(List.of(Duration.ofMillis(5), Duration.ofMillis(10),
            Duration.ofMillis(20)));

    final RunService runs;
    final LocalAgentRuntime runtime;

    Harness(ModelProvider model, int maxIterations, int maxConcurrent, SessionStore sessions, Tool... tools) {
        this(model, maxIterations, maxConcurrent, sessions, Redactor.none(), tools);
    }

    Harness(ModelProvider model, int maxIterations, int maxConcurrent, SessionStore sessions, Redactor redactor,
            Tool... tools) {
        this(model, maxIterations, maxConcurrent, sessions, redactor, Clock.systemUTC(), tools);
    }

    /** With the run service on {@code clock} (the agent loop keeps the system clock). */
    Harness(ModelProvider model, Clock clock) {
        this(model, 90, 0, null, Redactor.none(), clock);
    }

    private Harness(ModelProvider model, int maxIterations, int maxConcurrent, SessionStore sessions, Redactor redactor,
                    Clock clock, Tool... tools) {
        Map<String, ClassLoader> loaders = new HashMap<>();
        var selection = new ToolSelection(Tools.catalog(tools), ToolSelection.DEFAULT);
        runtime = new LocalAgentRuntime(model, selection,
                new ToolDispatcher(loaders, JSON, redactor, Path.of("/work/space")),
                SystemPrompt.builtIn(),
                new AgentSettings("test-model", maxIterations, 8, true, FAST), redactor, Clock.systemUTC());
        runs = new RunService(runtime, new InMemoryEventLog(), null, sessions, maxConcurrent, model != null, clock);
    }

    Harness(ModelProvider model, Tool... tools) {
        this(model, 90, 0, null, tools);
    }

    static RunRequest request(String input) {
        return request(input, null);
    }

    static RunRequest request(String input, String sessionId) {
        return new RunRequest(null, List.of(Message.user(input)), null, List.of(), sessionId, null,
                ModelOptions.DEFAULTS, 0, Map.of());
    }

    RunHandle start(String input) throws Exception {
        return runs.start(request(input));
    }

    /** Every entry of a finished run, in order. */
    static List<JournalEntry> entries(RunHandle run) throws InterruptedException {
        var out = new ArrayList<JournalEntry>();
        try (var sub = run.subscribe(0)) {
            while (!sub.finished()) sub.next(Duration.ofSeconds(5)).ifPresentOrElse(out::add, () -> {
                throw new AssertionError("no terminal event within 5 s");
            });
        }
        return out;
    }

    static List<RunEvent> events(RunHandle run) throws InterruptedException {
        return entries(run).stream().map(JournalEntry::event).toList();
    }
}
