package dev.caduceus.plugin.relay;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.agent.AgentRuntime;
import dev.caduceus.spi.agent.RunContext;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.spi.outbound.OutboundHttp.Event;
import dev.caduceus.spi.outbound.OutboundHttp.Failure;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The {@code relay} runtime: each agent turn runs on the remote server. A turn with an
 * approval channel (runs, job runs) runs on the remote's runs API ({@link RunsTurn}), so the
 * remote's approval requests reach the front's run and a stop reaches the remote's run; a remote
 * that has no runs API ({@code POST /v1/runs} answers 404 or 405) is remembered, once per runtime,
 * and those turns then go the chat way too. Every other turn is one streaming chat completion whose
 * events become run events ({@link RemoteTurn}). Failures become failed runs with
 * {@code proxy_unreachable}, {@code proxy_auth_failed}, {@code proxy_error} or {@code proxy_timeout},
 * with messages that never contain the proxy key. A stop, client disconnect or shutdown (the run's
 * cancellation) cancels the remote exchange at once. HTTP is the host's client ({@code ctx.outbound()}),
 * whose idle timeout is {@code gateway.proxy_read_timeout_seconds}.
 *
 * <p>Threading: shared by all run threads; {@link #execute} keeps its state on the calling thread.
 */
final class RelayRuntime implements AgentRuntime {
    private static final System.Logger LOG = System.getLogger(RelayRuntime.class.getName());

    private final RelaySettings settings;
    private final ObjectMapper json;
    private final OutboundHttp http;
    private final Outcomes outcomes;
    private final AtomicBoolean runsApi = new AtomicBoolean(true);

    RelayRuntime(RelaySettings settings, ObjectMapper json, OutboundHttp http) {
        this.settings = settings;
        this.json = json;
        this.http = http;
        this.outcomes = new Outcomes(settings, json);
    }

    @Override
    public String id() {
        return "relay";
    }

    /** {@code gateway.proxy_url} is set: {@code agent.runtime: auto} relays every turn. */
    @Override
    public boolean configured() {
        return settings.target() != null;
    }

    RelaySettings settings() {
        return settings;
    }

    @Override
    public RunResult execute(RunRequest request, RunContext context) throws Exception {
        if (settings.target() == null)
            return outcomes.failed("proxy_unreachable", "gateway.proxy_url is not set", null, Usage.ZERO);
        if (context.approvalChannel() && runsApi.get()) {
            try {
                return new RunsTurn(settings, json, http, outcomes, request, context).execute();
            } catch (RunsTurn.NoRunsApi e) {
                if (runsApi.compareAndSet(true, false))
                    LOG.log(System.Logger.Level.INFO, "The remote agent server " + settings.origin()
                            + " has no runs API (POST /v1/runs answered " + e.status + "): runs and job runs are"
                            + " relayed as chat completions, and its dangerous commands are blocked instead of asked");
            }
        }
        return chat(request, context);
    }

    /** One streaming chat completion: request, headers, events back, failures, cancellation. */
    private RunResult chat(RunRequest request, RunContext context) throws Exception {
        var turn = new RemoteTurn(json, context);
        var exchange = http.prepare(RelayRequest.build(settings, json, request));
        try (exchange; var hook = context.cancellation().onCancel(exchange::cancel)) {
            OutboundHttp.Response response;
            try {
                response = exchange.send();
            } catch (Failure e) {
                if (exchange.cancelled()) return cancelled(turn);
                return outcomes.unanswered(e, null, Usage.ZERO);
            }
            int status = response.status();
            if (status / 100 != 2) {
                return outcomes.failed(Outcomes.codeFor(status), outcomes.answered(status, response), null, Usage.ZERO);
            }
            try {
                var events = response.events(turn::comment);
                for (Optional<Event> event; (event = events.next()).isPresent(); ) {
                    if (turn.event(event.get())) break;
                }
            } catch (Failure e) {
                if (exchange.cancelled()) return cancelled(turn);
                switch (e.kind()) {
                    case TIMEOUT -> {
                        return outcomes.silent(turn.output(), turn.usage());
                    }
                    case LINE_TOO_LONG -> {
                        return outcomes.failed("proxy_error", "The remote agent server sent a malformed stream: "
                                + Outcomes.clip(e.getMessage()), turn.output(), turn.usage());
                    }
                    default -> {
                        if (!turn.finished())
                            return outcomes.failed("proxy_error", "The remote stream broke: " + Outcomes.clip(e.getMessage()),
                                    turn.output(), turn.usage());
                    }
                }
            } catch (RemoteTurn.Malformed e) {
                return outcomes.failed("proxy_error", "The remote agent server sent a malformed stream: " + Outcomes.clip(e.getMessage()),
                        turn.output(), turn.usage());
            }
            if (exchange.cancelled()) return cancelled(turn);
            return result(turn, context);
        }
    }

    private RunResult result(RemoteTurn turn, RunContext context) {
        var output = turn.output();
        var messages = Outcomes.transcript(output);
        if (!turn.finished())
            return RunResult.of(StopReason.UPSTREAM_ERROR, output, turn.usage(), "proxy_error",
                    "The remote stream ended before the turn finished", messages);
        return switch (turn.finishReason()) {
            case "error" -> RunResult.of(StopReason.UPSTREAM_ERROR, output, turn.usage(), "agent_error",
                    outcomes.redact(turn.error() == null ? "The remote agent failed" : turn.error()), messages);
            case "length" -> RunResult.of(StopReason.OUTPUT_LENGTH, output, turn.usage(), "output_truncated",
                    outcomes.redact(turn.error() == null ? "The remote answer was truncated" : turn.error()), messages);
            case "tool_calls" -> clientCalls(turn, output, context);
            default -> RunResult.completed(output, turn.usage(), messages);
        };
    }

    /**
     * The remote ended the turn with the caller's own calls (its ids: the remote keeps its side of the turn and puts
     * it back when the caller's answers come through here).
     */
    private RunResult clientCalls(RemoteTurn turn, String output, RunContext context) {
        var calls = turn.toolCalls();
        if (calls.isEmpty())
            return RunResult.of(StopReason.UPSTREAM_ERROR, output, turn.usage(), "proxy_error",
                    "The remote ended with tool_calls but named no call", Outcomes.transcript(output));
        context.emit(new RunEvent.ToolCallsRequired(calls));
        var content = output.isEmpty() ? java.util.List.<dev.caduceus.spi.message.ContentPart>of()
                : java.util.List.<dev.caduceus.spi.message.ContentPart>of(new dev.caduceus.spi.message.ContentPart.Text(output));
        return RunResult.of(StopReason.TOOL_CALLS, output.isEmpty() ? null : output, turn.usage(), null, null,
                java.util.List.of(new dev.caduceus.spi.message.Message("assistant", content, calls, null, null)));
    }

    private static RunResult cancelled(RemoteTurn turn) {
        return Outcomes.cancelled(turn.output(), turn.usage());
    }
}
