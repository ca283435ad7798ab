package dev.caduceus.plugin.relay;

import dev.caduceus.support.clienttools.ClientToolsField;
import dev.caduceus.support.clienttools.ToolTranscript;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.message.ContentPart;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.outbound.OutboundHttp;

/**
 * The remote request of one turn: the streaming chat-completions body with
 * the full message list, and the headers. Never {@code X-Hermes-Session-Id}: the remote would replace
 * the sent history with its own stored copy.
 */
final class RelayRequest {
    /**
     * The {@code Accept-Encoding} of the streamed answers (as before the host's client): frames are
     * small and relayed one by one as they arrive, so compression gains little and may make a remote
     * buffer them.
     */
    static final String IDENTITY = "identity";

    private RelayRequest() {}

    static OutboundHttp.Request build(RelaySettings settings, ObjectMapper json, RunRequest request) throws Exception {
        var remote = OutboundHttp.Request.post(settings.chatUri(), "application/json",
                        json.writeValueAsBytes(body(settings, json, request)))
                .withHeader("Accept", "text/event-stream")
                .withHeader("Accept-Encoding", IDENTITY)
                .withHeader("User-Agent", "caduceus-relay/" + settings.version());
        if (settings.key() != null) remote = remote.withHeader("Authorization", "Bearer " + settings.key());
        if (settings.toolProgress()) remote = remote.withHeader("X-Hermes-Tool-Progress", "true");
        if (request.sessionKey() != null && !request.sessionKey().isBlank())
            remote = remote.withHeader("X-Hermes-Session-Key", request.sessionKey());
        return settings.toRemote(remote);
    }

    static ObjectNode body(RelaySettings settings, ObjectMapper json, RunRequest request) {
        var body = json.createObjectNode();
        body.put("model", settings.modelName());
        body.put("stream", true);
        body.putObject("stream_options").put("include_usage", true);
        var messages = body.putArray("messages");
        if (request.instructions() != null && !request.instructions().isBlank())
            messages.addObject().put("role", "system").put("content", request.instructions());
        for (var m : request.messages()) message(messages.addObject(), m);
        clientTools(body, request.clientTools());
        return body;
    }

    /** The caller's own functions, {@code tool_choice} and {@code parallel_tool_calls}, as the caller sent them. */
    static void clientTools(ObjectNode body, RunRequest.ClientTools client) {
        if (!client.tools().isEmpty()) {
            var tools = body.putArray("tools");
            for (var spec : client.tools()) {
                var function = tools.addObject().put("type", "function").putObject("function").put("name", spec.name());
                if (!spec.description().isEmpty()) function.put("description", spec.description());
                function.set("parameters", spec.parameters());
            }
        }
        ClientToolsField.writeChoice(body, client.choice(), client.parallelToolCalls());
    }

    private static void message(ObjectNode out, Message m) {
        out.put("role", m.role());
        content(out, m);
        if (!m.toolCalls().isEmpty()) out.set("tool_calls", ToolTranscript.toolCallsJson(m.toolCalls()));
        if (m.toolCallId() != null) out.put("tool_call_id", m.toolCallId());
        if (m.name() != null) out.put("name", m.name());
    }

    /**
     * Puts {@code content}: a string when the message is all text ({@code null} for an assistant
     * message that only calls tools), else the canonical part list with its images.
     */
    static void content(ObjectNode out, Message m) {
        boolean onlyText = m.content().stream().allMatch(p -> p instanceof ContentPart.Text);
        if (onlyText) {
            if (m.content().isEmpty() && !m.toolCalls().isEmpty()) out.putNull("content");
            else out.put("content", m.text());
        } else {
            ArrayNode parts = out.putArray("content");
            for (var part : m.content()) {
                switch (part) {
                    case ContentPart.Text t -> parts.addObject().put("type", "text").put("text", t.text());
                    case ContentPart.ImageUrl i -> {
                        var image = parts.addObject().put("type", "image_url").putObject("image_url").put("url", i.url());
                        if (i.detail() != null) image.put("detail", i.detail());
                    }
                }
            }
        }
    }
}
