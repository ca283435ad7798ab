package dev.caduceus.plugin.relay;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.message.ContentPart;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.tool.ToolContext.ApprovalChoice;
import dev.caduceus.spi.outbound.OutboundHttp;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The remote requests of one turn run on the remote's runs API: the submission
 * ({@code POST /v1/runs}), the event stream ({@code GET …/events}, resumed with
 * {@code Last-Event-ID}), an approval answer and the stop. Every one carries the chat path's
 * headers: the proxy key, the caller's {@code X-Hermes-Session-Key}, the {@code User-Agent}.
 *
 * <p>The submission carries the same message list the chat path sends: {@code instructions} = the
 * caller's instructions and any {@code system} messages (joined with a newline, as the remote's
 * chat route would layer them), {@code input} = the {@code user} and {@code assistant} messages in
 * order, the last one (the turn input) with its image parts; tool messages and tool calls stay out,
 * as the remote's chat route drops them. No {@code model}: on runs a bare model name is sent to the
 * remote's upstream as is, and the front's advertised name means nothing there. {@code session_id}
 * is the front's session when it is a valid remote session id, so {@code session} approvals and the
 * tools' task scope follow the front's session. Stateless.
 */
final class RunsRequest {
    private static final Pattern SESSION_ID = Pattern.compile("[A-Za-z0-9_.:@+=-]{1,256}");
    /** Approval answers and stops are small: a remote that cannot take one in this time is gone. */
    static final Duration CONTROL_TIMEOUT = Duration.ofSeconds(5);

    private RunsRequest() {}

    static OutboundHttp.Request submit(RelaySettings settings, ObjectMapper json, RunRequest request) throws Exception {
        var submit = OutboundHttp.Request.post(settings.runsUri(), "application/json",
                json.writeValueAsBytes(body(json, request))).withHeader("Accept", "application/json");
        return settings.toRemote(headers(submit, settings, request.sessionKey()));
    }

    static OutboundHttp.Request events(RelaySettings settings, String sessionKey, String runId, long afterSeq) {
        var events = OutboundHttp.Request.get(settings.runUri(runId, "events"))
                .withFollowRedirects(false) // like every relay request: a moved remote is the operator's to fix
                .withHeader("Accept", "text/event-stream")
                .withHeader("Accept-Encoding", RelayRequest.IDENTITY);
        if (afterSeq > 0) events = events.withHeader("Last-Event-ID", Long.toString(afterSeq));
        return settings.toRemote(headers(events, settings, sessionKey));
    }

    static OutboundHttp.Request approval(RelaySettings settings, ObjectMapper json, String sessionKey, String runId,
                                         String requestId, ApprovalChoice choice) throws Exception {
        var body = json.createObjectNode().put("choice", wireChoice(choice));
        if (requestId != null) body.put("request_id", requestId);
        return control(settings, sessionKey, runId, "approval", json.writeValueAsBytes(body));
    }

    /** The caller's outputs of its own tool calls, in the runs API's {@code tool_outputs} shape. */
    static OutboundHttp.Request toolOutputs(RelaySettings settings, ObjectMapper json, String sessionKey, String runId,
                                            java.util.Map<String, String> outputs) throws Exception {
        var body = json.createObjectNode();
        var list = body.putArray("tool_outputs");
        outputs.forEach((id, output) -> list.addObject().put("tool_call_id", id).put("output", output));
        return control(settings, sessionKey, runId, "tool_outputs", json.writeValueAsBytes(body));
    }

    static OutboundHttp.Request stop(RelaySettings settings, String sessionKey, String runId) {
        return control(settings, sessionKey, runId, "stop", "{}".getBytes(StandardCharsets.UTF_8));
    }

    /** {@code once}, {@code session}, {@code always}, {@code deny}; a timed-out front approval is a {@code deny}. */
    static String wireChoice(ApprovalChoice choice) {
        return choice == ApprovalChoice.TIMED_OUT ? "deny" : choice.name().toLowerCase(Locale.ROOT);
    }

    static ObjectNode body(ObjectMapper json, RunRequest request) {
        var body = json.createObjectNode();
        var system = new ArrayList<String>();
        if (request.instructions() != null && !request.instructions().isBlank()) system.add(request.instructions());
        var input = body.putArray("input");
        for (var m : request.messages()) {
            switch (m.role()) {
                case "system", "developer" -> {
                    if (!m.text().isBlank()) system.add(m.text());
                }
                case "user", "assistant" -> {
                    if (!hasPayload(m)) continue;
                    var entry = input.addObject().put("role", m.role());
                    RelayRequest.content(entry, m);
                }
                default -> { } // tool results: the remote's chat route drops them too
            }
        }
        if (!system.isEmpty()) body.put("instructions", String.join("\n", system));
        RelayRequest.clientTools(body, request.clientTools()); // the caller's own functions, as it sent them
        var sessionId = request.sessionId();
        if (sessionId != null && SESSION_ID.matcher(sessionId).matches() && !sessionId.contains(".."))
            body.put("session_id", sessionId);
        return body;
    }

    private static boolean hasPayload(Message m) {
        return !m.content().isEmpty() && (!m.text().isBlank()
                || m.content().stream().anyMatch(p -> !(p instanceof ContentPart.Text)));
    }

    private static OutboundHttp.Request control(RelaySettings settings, String sessionKey, String runId, String action,
                                                byte[] body) {
        var control = OutboundHttp.Request.post(settings.runUri(runId, action), "application/json", body)
                .withHeader("Accept", "application/json");
        return settings.toRemote(headers(control, settings, sessionKey), CONTROL_TIMEOUT);
    }

    private static OutboundHttp.Request headers(OutboundHttp.Request request, RelaySettings settings, String sessionKey) {
        var with = request.withHeader("User-Agent", "caduceus-relay/" + settings.version());
        if (settings.key() != null) with = with.withHeader("Authorization", "Bearer " + settings.key());
        if (sessionKey != null && !sessionKey.isBlank()) with = with.withHeader("X-Hermes-Session-Key", sessionKey);
        return with;
    }
}
