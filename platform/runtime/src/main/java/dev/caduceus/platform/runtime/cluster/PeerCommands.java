package dev.caduceus.platform.runtime.cluster;

import dev.caduceus.spi.agent.Runs.ToolOutputs;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.runtime.agent.PeerRuns;
import dev.caduceus.platform.runtime.agent.RunService;
import dev.caduceus.platform.runtime.journal.RunJournal;
import dev.caduceus.platform.host.store.Database;
import dev.caduceus.spi.agent.ApprovalAnswer;
import dev.caduceus.spi.tool.ToolContext.ApprovalChoice;
import dev.caduceus.spi.agent.SteerOutcome;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.http.HttpStatusException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Control requests ({@code stop}, {@code approval}, {@code steer}) for runs another node executes, through
 * the {@code run_commands} table: the node that received the request writes a row for the owning node and
 * wakes it ({@link ClusterBus#COMMANDS}); the owner carries it out with its own {@link RunService} — so the
 * answer is exactly the one a client of the owner gets — writes the answer into the row and wakes the
 * sender ({@link ClusterBus#ANSWERS}), which deletes the row and answers its client. Both sides also poll
 * (the sender every 250 ms, the owner on every lease tick), so a lost notification costs latency, never
 * an answer. An owner that does not answer within {@value #ANSWER_SECONDS} s (dead, or cut off) makes
 * the request fail with 503 {@code run_owner_unreachable}; if it is dead, another node ends its runs as
 * interrupted within 15 s.
 *
 * <p>A command is carried out at most once: the owner claims it in memory while carrying it out and
 * marks it answered in the same write that stores the answer.
 *
 * <p>Threading: thread-safe. {@link #serve} may be called from any thread; it hands each command to a
 * virtual thread.
 */
final class PeerCommands implements PeerRuns {
    private static final Logger LOG = LoggerFactory.getLogger(PeerCommands.class);
    static final int ANSWER_SECONDS = 10;
    private static final Duration POLL = Duration.ofMillis(250);
    private static final Duration KEEP = Duration.ofMinutes(1);

    private final Database database;
    private final RunJournal journal;
    private final ClusterBus bus;
    private final String nodeId;
    private final ObjectMapper json;
    private final Clock clock;
    private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
    private volatile RunService runs;

    PeerCommands(Database database, RunJournal journal, ClusterBus bus, String nodeId, ObjectMapper json, Clock clock) {
        this.database = database;
        this.journal = journal;
        this.bus = bus;
        this.nodeId = nodeId;
        this.json = json;
        this.clock = clock;
    }

    /** The service that carries out the commands sent to this node. */
    void serveWith(RunService runs) {
        this.runs = runs;
    }

    @Override
    public Optional<Boolean> stop(String runId) {
        return send(runId, "stop", null).map(Boolean::parseBoolean);
    }

    @Override
    public Optional<ApprovalAnswer.Outcome> approve(String runId, ApprovalAnswer answer) {
        String body;
        try {
            body = json.writeValueAsString(Map.of("choice", answer.choice().name(), "all", answer.all(),
                    "request_id", answer.requestId() == null ? "" : answer.requestId()));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        return send(runId, "approve", body).map(PeerCommands::outcome);
    }

    @Override
    public Optional<SteerOutcome> steer(String runId, String text) {
        return send(runId, "steer", text).map(SteerOutcome::valueOf);
    }

    @Override
    public Optional<ToolOutputs> submitToolOutputs(String runId, Map<String, String> outputs) {
        String body;
        try {
            body = json.writeValueAsString(outputs);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        return send(runId, "tool_outputs", body).map(PeerCommands::toolOutputs);
    }

    /** Sends a command to the run's owner and waits for its answer; empty when no other node owns the live run. */
    private Optional<String> send(String runId, String kind, String body) {
        var placement = journal.placement(runId);
        if (placement.isEmpty() || !placement.get().live()) return Optional.empty();
        String owner = placement.get().nodeId();
        if (owner == null || owner.equals(nodeId)) return Optional.empty();
        String id = "cmd_" + UUID.randomUUID().toString().replace("-", "");
        var woken = bus.awaitAnswer(id);
        try {
            database.write(sql -> {
                sql.update("INSERT INTO run_commands (id, run_id, node_id, kind, body, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                        id, runId, owner, kind, body, clock.millis());
                ClusterBus.notify(sql, ClusterBus.COMMANDS, owner);
                return null;
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ANSWER_SECONDS);
            var wake = woken;
            while (true) {
                var answer = database.read(sql -> sql.queryOne("SELECT answer FROM run_commands WHERE id = ? AND answered_at IS NOT NULL",
                        r -> r.getString(1), id));
                if (answer.isPresent()) return answer;
                long left = deadline - System.nanoTime();
                if (left <= 0) break;
                try {
                    wake.get(Math.min(left, POLL.toNanos()), TimeUnit.NANOSECONDS);
                    wake = bus.awaitAnswer(id);
                } catch (TimeoutException e) {
                    // poll the row again
                } catch (ExecutionException e) {
                    throw new IllegalStateException(e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            throw new HttpStatusException(new ApiError(503, "Run " + runId + " is executed by node " + owner
                    + ", which did not answer within " + ANSWER_SECONDS + " s. If that node has stopped, another node takes "
                    + "the run over within 15 s (it resumes it, or marks it interrupted); retry then.", ApiError.SERVER, null, "run_owner_unreachable")
                    .withHeader("Retry-After", "5"));
        } finally {
            bus.forgetAnswer(id);
            try {
                database.write(sql -> sql.update("DELETE FROM run_commands WHERE id = ?", id));
            } catch (RuntimeException e) {
                LOG.debug("Could not delete command {}: {}", id, e.getMessage()); // the sweep deletes it later
            }
        }
    }

    /** Carries out the commands waiting for this node (each once), on virtual threads. */
    void serve() {
        var service = runs;
        if (service == null) return;
        java.util.List<String[]> waiting;
        try {
            waiting = database.read(sql -> sql.query("SELECT id, run_id, kind, body FROM run_commands "
                    + "WHERE node_id = ? AND answered_at IS NULL", r -> new String[] {r.getString(1), r.getString(2),
                    r.getString(3), r.getString(4)}, nodeId));
        } catch (RuntimeException e) {
            LOG.warn("Could not read the commands sent to this node: {}", e.getMessage());
            return;
        }
        for (String[] c : waiting) {
            if (!inFlight.add(c[0])) continue;
            Thread.ofVirtual().name("caduceus-command-" + c[0]).start(() -> {
                try {
                    String answer = carryOut(service, c[1], c[2], c[3]);
                    database.write(sql -> {
                        int updated = sql.update("UPDATE run_commands SET answered_at = ?, answer = ? WHERE id = ? "
                                + "AND answered_at IS NULL", clock.millis(), answer, c[0]);
                        if (updated > 0) ClusterBus.notify(sql, ClusterBus.ANSWERS, c[0]);
                        return null;
                    });
                } catch (RuntimeException e) {
                    LOG.warn("Command {} ({} of run {}) failed: {}", c[0], c[2], c[1], e.toString());
                } finally {
                    inFlight.remove(c[0]);
                }
            });
        }
    }

    /** Deletes commands nobody collected (their sender gave up or died). */
    void sweep() {
        database.write(sql -> sql.update("DELETE FROM run_commands WHERE created_at < ?", clock.millis() - KEEP.toMillis()));
    }

    private String carryOut(RunService service, String runId, String kind, String body) {
        return switch (kind) {
            case "stop" -> String.valueOf(service.stop(runId));
            case "steer" -> service.steer(runId, body).name();
            case "approve" -> encode(service.approve(runId, answer(body)));
            case "tool_outputs" -> encode(service.submitToolOutputs(runId, outputs(body)));
            default -> throw new IllegalArgumentException("unknown command " + kind);
        };
    }

    private Map<String, String> outputs(String body) {
        try {
            return json.readValue(body, new com.fasterxml.jackson.core.type.TypeReference<java.util.LinkedHashMap<String, String>>() {});
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("malformed tool_outputs command", e);
        }
    }

    /** A {@code tool_outputs} answer on the wire between nodes: {@code accepted:N}, {@code mismatch:MESSAGE}, … */
    static String encode(ToolOutputs outcome) {
        return switch (outcome) {
            case ToolOutputs.Accepted a -> "accepted:" + a.count();
            case ToolOutputs.RunNotFound n -> "run_not_found";
            case ToolOutputs.NotWaiting n -> "not_waiting";
            case ToolOutputs.Mismatch m -> "mismatch:" + m.message();
        };
    }

    static ToolOutputs toolOutputs(String text) {
        if (text.startsWith("accepted:")) return new ToolOutputs.Accepted(Integer.parseInt(text.substring(9)));
        if (text.startsWith("mismatch:")) return new ToolOutputs.Mismatch(text.substring(9));
        return text.equals("run_not_found") ? new ToolOutputs.RunNotFound()
                : new ToolOutputs.NotWaiting();
    }

    private ApprovalAnswer answer(String body) {
        try {
            var node = json.readTree(body);
            String requestId = node.path("request_id").asText("");
            return new ApprovalAnswer(ApprovalChoice.valueOf(node.path("choice").asText()),
                    requestId.isEmpty() ? null : requestId, node.path("all").asBoolean(false));
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("malformed approval command", e);
        }
    }

    static String encode(ApprovalAnswer.Outcome outcome) {
        return switch (outcome) {
            case ApprovalAnswer.Outcome.Resolved r -> "resolved:" + r.count();
            case ApprovalAnswer.Outcome.RunNotFound n -> "run_not_found";
            case ApprovalAnswer.Outcome.NotActive n -> "not_active";
            case ApprovalAnswer.Outcome.NotPending n -> "not_pending";
            case ApprovalAnswer.Outcome.UnknownRequest n -> "unknown_request";
        };
    }

    static ApprovalAnswer.Outcome outcome(String text) {
        if (text.startsWith("resolved:")) return new ApprovalAnswer.Outcome.Resolved(Integer.parseInt(text.substring(9)));
        return switch (text) {
            case "run_not_found" -> new ApprovalAnswer.Outcome.RunNotFound();
            case "not_active" -> new ApprovalAnswer.Outcome.NotActive();
            case "not_pending" -> new ApprovalAnswer.Outcome.NotPending();
            case "unknown_request" -> new ApprovalAnswer.Outcome.UnknownRequest();
            default -> throw new IllegalStateException("unknown approval outcome " + text);
        };
    }
}
