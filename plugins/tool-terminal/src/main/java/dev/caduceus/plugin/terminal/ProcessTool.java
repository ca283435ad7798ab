package dev.caduceus.plugin.terminal;

import static dev.caduceus.plugin.terminal.JsonText.obj;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolCall;
import dev.caduceus.spi.tool.ToolContext;
import dev.caduceus.spi.tool.ToolResult;
import dev.caduceus.spi.tool.ToolRisk;
import dev.caduceus.spi.tool.ToolSpec;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The {@code process} tool: list, poll, log, wait, kill, write, submit and close
 * for the background processes of the caller's session. Processes of other sessions are invisible.
 * Thread-safe.
 */
final class ProcessTool implements Tool {
    static final String DESCRIPTION = "Manage background processes started with terminal(background=true): list them, "
            + "poll status and recent output, read the log by lines, wait for exit, kill, or send input "
            + "(write raw data, submit data plus newline, close stdin). Every action except list needs the "
            + "session_id (proc_…) returned by terminal.";
    static final List<String> ACTIONS = List.of("list", "poll", "log", "wait", "kill", "write", "submit", "close");
    private static final int TAIL_CHARS = 2000;

    private final ToolSpec spec;
    private final ProcessRegistry registry;
    private final TerminalSettings settings;

    ProcessTool(ObjectNode schema, ProcessRegistry registry, TerminalSettings settings) {
        this.spec = new ToolSpec("process", DESCRIPTION, schema, "terminal", List.of(), ToolRisk.EXECUTES, 100_000,
                false, false, "⚙️");
        this.registry = registry;
        this.settings = settings;
    }

    @Override
    public ToolSpec spec() {
        return spec;
    }

    @Override
    public ToolResult call(ToolCall call, ToolContext ctx) throws Exception {
        var args = call.arguments();
        try {
            var action = Args.string(args, "action", null);
            if (action == null || !ACTIONS.contains(action))
                return new ToolResult.Error("Invalid action: " + (action == null ? "missing" : "'" + action + "'")
                        + ". Valid actions: " + String.join(", ", ACTIONS), false);
            registry.reapExpired();
            if (action.equals("list")) return ok(obj("processes", list(ctx.sessionId())));
            var id = Args.string(args, "session_id", null);
            if (id == null || id.isBlank()) return new ToolResult.Error("session_id is required for " + action, false);
            var found = registry.get(ctx.sessionId(), id);
            if (found.isEmpty()) return new ToolResult.Error("Unknown process session: " + id, false);
            var p = found.get();
            return switch (action) {
                case "poll" -> ok(obj("session_id", id, "status", p.status(), "exit_code", p.exitCode(),
                        "uptime_seconds", p.uptimeSeconds(), "output_tail", p.tail(TAIL_CHARS)));
                case "log" -> log(p, Args.integer(args, "offset", null, Integer.MIN_VALUE),
                        Args.integer(args, "limit", 200, 1));
                case "wait" -> waitFor(p, Math.min(Args.integer(args, "timeout", 60, 1), 600), ctx);
                case "kill" -> {
                    p.kill(settings.killGrace());
                    yield ok(obj("session_id", id, "killed", true, "exit_code", p.exitCode()));
                }
                default -> input(p, action, Args.string(args, "data", ""));
            };
        } catch (IllegalArgumentException e) {
            return new ToolResult.Error(e.getMessage(), false);
        }
    }

    private List<Object> list(String session) {
        var out = new ArrayList<Object>();
        for (var p : registry.list(session))
            out.add(obj("session_id", p.id(), "pid", p.pid(), "command", p.command(), "status", p.status(),
                    "exit_code", p.exitCode(), "started_at", p.startedAt().toString(), "uptime_seconds", p.uptimeSeconds()));
        return out;
    }

    /** Lines {@code offset …offset+limit} (0-based; negative counts from the end); default the last {@code limit}. */
    private static ToolResult log(BackgroundProcess p, Integer offset, int limit) {
        var lines = p.lines();
        int total = lines.size();
        int from = offset == null ? Math.max(0, total - limit) : offset < 0 ? Math.max(0, total + offset) : Math.min(offset, total);
        int to = Math.min(total, from + limit);
        return ok(obj("session_id", p.id(), "output", String.join("\n", lines.subList(from, to)), "offset", from,
                "returned_lines", to - from, "total_lines", total));
    }

    private static ToolResult waitFor(BackgroundProcess p, int timeoutSeconds, ToolContext ctx) throws InterruptedException {
        var wake = new CountDownLatch(1);
        boolean exited;
        try (var hook = ctx.cancellation().onCancel(wake::countDown)) {
            var waiter = Thread.ofVirtual().start(() -> {
                try {
                    if (p.await(Duration.ofSeconds(timeoutSeconds))) wake.countDown();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            wake.await(timeoutSeconds, TimeUnit.SECONDS);
            waiter.interrupt();
            exited = !p.running();
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("cannot unregister the cancellation hook", e);
        }
        return ok(obj("session_id", p.id(), "status", p.status(), "exit_code", p.exitCode(), "timed_out", !exited,
                "output_tail", p.tail(TAIL_CHARS)));
    }

    private static ToolResult input(BackgroundProcess p, String action, String data) {
        if (!p.running()) return new ToolResult.Error("Process " + p.id() + " has exited; its input is closed", false);
        try {
            switch (action) {
                case "write" -> p.write(data);
                case "submit" -> p.write(data + "\n");
                default -> p.closeInput();
            }
        } catch (IOException e) {
            return new ToolResult.Error("Cannot write to " + p.id() + ": " + e.getMessage(), false);
        }
        return ok(obj("session_id", p.id(), "ok", true));
    }

    private static ToolResult ok(Map<String, Object> result) {
        return new ToolResult.Ok(JsonText.write(result));
    }
}
