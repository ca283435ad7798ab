package dev.caduceus.plugin.runs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.agent.Runs;
import dev.caduceus.spi.http.HttpExchange;
import dev.caduceus.spi.http.HttpHandler;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code POST /v1/runs/{run_id}/tool_outputs}: the caller's outputs of its own tool calls, in OpenAI's Assistants
 * shape {@code {"tool_outputs":[{"tool_call_id","output"}]}}, for a run that waits for them ({@code requires_action}).
 * Every pending call must be answered, once: accepted → 200 {@code hermes.run.tool_outputs_response} and the run goes
 * on; no such run → 404; a run that does not wait for outputs → 409 {@code run_not_requires_action}; outputs that do
 * not answer exactly the pending calls, or a malformed body → 400 {@code invalid_tool_outputs}. Thread-safe.
 */
final class ToolOutputsHandler implements HttpHandler {
    private final PlatformContext ctx;

    ToolOutputsHandler(PlatformContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void handle(HttpExchange exchange) {
        var id = exchange.pathParam("run_id");
        OwnedRuns.require(ctx.runs(), exchange, id);
        var outputs = parse(exchange.body());
        switch (ctx.runs().submitToolOutputs(id, outputs)) {
            case Runs.ToolOutputs.Accepted a -> exchange.respond(200, JsonNodeFactory.instance.objectNode()
                    .put("object", "hermes.run.tool_outputs_response").put("run_id", id).put("accepted", a.count()));
            case Runs.ToolOutputs.RunNotFound n -> throw RunErrors.runNotFound(id);
            case Runs.ToolOutputs.NotWaiting n -> throw RunErrors.conflict("run_not_requires_action",
                    "Run is not waiting for tool outputs: " + id);
            case Runs.ToolOutputs.Mismatch m -> throw RunErrors.badRequest("invalid_tool_outputs", m.message(), "tool_outputs");
        }
    }

    /** Call id → output text (a non-string output is sent as its JSON). */
    static Map<String, String> parse(JsonNode body) {
        var list = body.get("tool_outputs");
        if (list == null || !list.isArray() || list.isEmpty())
            throw RunErrors.badRequest("invalid_tool_outputs", "'tool_outputs' must be a non-empty array of "
                    + "{\"tool_call_id\", \"output\"} objects", "tool_outputs");
        var outputs = new LinkedHashMap<String, String>();
        for (int i = 0; i < list.size(); i++) {
            var item = list.get(i);
            var at = "tool_outputs[" + i + "]";
            var callId = item.path("tool_call_id");
            if (!callId.isTextual() || callId.asText().isBlank())
                throw RunErrors.badRequest("invalid_tool_outputs", "Missing required parameter: '" + at + ".tool_call_id'.",
                        at + ".tool_call_id");
            var output = item.get("output");
            if (output == null || output.isNull())
                throw RunErrors.badRequest("invalid_tool_outputs", "Missing required parameter: '" + at + ".output'.",
                        at + ".output");
            if (outputs.put(callId.asText(), output.isTextual() ? output.asText() : output.toString()) != null)
                throw RunErrors.badRequest("invalid_tool_outputs", "Tool call " + callId.asText() + " is answered twice.",
                        at + ".tool_call_id");
        }
        return outputs;
    }
}
