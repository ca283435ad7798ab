package dev.caduceus.plugin.responses;

import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.http.HttpExchange;
import dev.caduceus.spi.http.HttpHandler;

/**
 * {@code POST /v1/responses/input_tokens}: how many input tokens a {@code POST /v1/responses} with this body would
 * send, answered as OpenAI does ({@code {"object":"response.input_tokens","input_tokens":N}}). The body is validated
 * and its history resolved as a create would (the chain, the conversation, the caller's own ownership and 404s), but
 * nothing runs and nothing is stored. The count is an estimate, documented: the upstream's tokenizer is not at hand,
 * so it is the characters of the instructions, the messages and the caller's tool schemas divided by 4, plus 3 per
 * message (OpenAI's rule of thumb for English text and its per-message overhead); the server's own system prompt and
 * tools are not counted. Thread-safe.
 */
final class InputTokensHandler implements HttpHandler {
    static final String PATH = CreateHandler.PATH + "/input_tokens";

    private final PlatformContext ctx;
    private final TurnResolver resolver;

    InputTokensHandler(PlatformContext ctx, TurnResolver resolver) {
        this.ctx = ctx;
        this.resolver = resolver;
    }

    @Override
    public void handle(HttpExchange exchange) {
        // counting places nothing in the workspace: an attached file counts as its one line
        var request = ResponseRequest.parse(exchange.body(), ctx.global().modelName(),
                name -> ctx.deployment().tool(name).isPresent(), (item, param) -> java.util.List.of(
                        new dev.caduceus.spi.message.ContentPart.Text("[Attached file: inputs/… in the workspace]")));
        var turn = resolver.resolve(request, ResponsesSessionHeaders.from(exchange), exchange.caller());
        exchange.respond(200, Envelope.JSON.objectNode().put("object", "response.input_tokens")
                .put("input_tokens", estimate(turn, request)));
    }

    /** The estimate described above. */
    static long estimate(ResolvedTurn turn, ResponseRequest request) {
        long chars = turn.run().instructions() == null ? 0 : turn.run().instructions().length();
        for (var message : turn.run().messages()) {
            chars += message.text().length();
            for (var call : message.toolCalls()) chars += call.name().length() + call.arguments().toString().length();
        }
        var tools = request.body().get("tools");
        if (tools != null && !tools.isNull()) chars += tools.toString().length();
        return (chars + 3) / 4 + 3L * turn.run().messages().size();
    }
}
