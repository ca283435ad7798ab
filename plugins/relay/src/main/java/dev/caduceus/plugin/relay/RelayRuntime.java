package dev.caduceus.plugin.relay;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.agent.AgentRuntime;
import dev.caduceus.spi.agent.RunContext;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.message.Usage;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The {@code relay} runtime: each agent turn runs on the remote server. A turn with an
 * approval channel (runs, job runs) runs on the remote's runs API ({@link RunsTurn}), so the
 * remote's approval requests reach the front's run and a stop reaches the remote's run; a remote
 * that has no runs API ({@code POST /v1/runs} answers 404 or 405) is remembered, once per runtime,
 * and those turns then go the chat way too. Every other turn is one streaming chat completion whose
 * frames become run events ({@link RemoteTurn}). Failures become failed runs with
 * {@code proxy_unreachable}, {@code proxy_auth_failed}, {@code proxy_error} or {@code proxy_timeout},
 * with messages that never contain the proxy key. A stop, client disconnect or shutdown (the run's
 * cancellation) closes the remote request at once.
 *
 * <p>Threading: shared by all run threads; {@link #execute} keeps its state on the calling thread.
 */
final class RelayRuntime implements AgentRuntime, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(RelayRuntime.class.getName());

    private final RelaySettings settings;
    private final ObjectMapper json;
    private final Outcomes outcomes;
    private final AtomicBoolean runsApi = new AtomicBoolean(true);
    private HttpClient http; // built on first call: building one initialises the JDK's default TLS context (loads and parses the CA certificates, ~0.15 s of a cold start); guarded by this
    private final ScheduledExecutorService timer;

    RelayRuntime(RelaySettings settings, ObjectMapper json) {
        this.settings = settings;
        this.json = json;
        this.outcomes = new Outcomes(settings.key(), json);
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            var t = new Thread(r, "relay-deadlines");
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public String id() {
        return "relay";
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
                return new RunsTurn(settings, json, http(), timer, outcomes, request, context).execute();
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
        try (var call = RemoteCall.send(http(), RelayRequest.build(settings, json, request), context.cancellation(),
                timer, settings.readTimeout())) {
            HttpResponse<InputStream> response;
            try {
                response = call.response();
            } catch (IOException e) {
                if (call.cancelled()) return cancelled(turn);
                if (call.timedOut())
                    return outcomes.failed("proxy_timeout", "The remote agent server sent nothing for "
                            + settings.readTimeout().toSeconds() + " s", null, Usage.ZERO);
                if (e instanceof HttpConnectTimeoutException || e instanceof ConnectException
                        || e.getCause() instanceof ConnectException)
                    return outcomes.failed("proxy_unreachable", "The remote agent server " + settings.origin()
                            + " is unreachable (" + e.getClass().getSimpleName() + ")", null, Usage.ZERO);
                return outcomes.failed("proxy_unreachable", "The remote agent server " + settings.origin()
                        + " is unreachable: " + Outcomes.clip(e.getMessage()), null, Usage.ZERO);
            }
            int status = response.statusCode();
            if (status / 100 != 2) {
                return outcomes.failed(Outcomes.codeFor(status), outcomes.answered(status, response.body()), null, Usage.ZERO);
            }
            try (var reader = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
                for (String line; (line = reader.readLine()) != null; ) {
                    call.touched();
                    if (turn.line(line)) break;
                }
            } catch (IOException e) {
                if (call.cancelled()) return cancelled(turn);
                if (call.timedOut())
                    return outcomes.failed("proxy_timeout", "The remote agent server sent nothing for "
                            + settings.readTimeout().toSeconds() + " s", turn.output(), turn.usage());
                if (!turn.finished())
                    return outcomes.failed("proxy_error", "The remote stream broke: " + e.getClass().getSimpleName(),
                            turn.output(), turn.usage());
            } catch (RemoteTurn.Malformed e) {
                return outcomes.failed("proxy_error", "The remote agent server sent a malformed stream: " + Outcomes.clip(e.getMessage()),
                        turn.output(), turn.usage());
            }
            if (call.cancelled()) return cancelled(turn);
            if (call.timedOut() && !turn.finished())
                return outcomes.failed("proxy_timeout", "The remote agent server sent nothing for "
                        + settings.readTimeout().toSeconds() + " s", turn.output(), turn.usage());
            return result(turn);
        }
    }

    private RunResult result(RemoteTurn turn) {
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
            default -> RunResult.completed(output, turn.usage(), messages);
        };
    }

    private static RunResult cancelled(RemoteTurn turn) {
        return Outcomes.cancelled(turn.output(), turn.usage());
    }

    private synchronized HttpClient http() {
        if (http == null)
            http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(settings.connectTimeout()).build();
        return http;
    }

    @Override
    public void close() {
        timer.shutdownNow();
        synchronized (this) {
            if (http != null) http.shutdownNow();
        }
    }
}
