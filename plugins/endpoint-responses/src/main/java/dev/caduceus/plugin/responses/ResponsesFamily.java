package dev.caduceus.plugin.responses;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.http.EndpointFamily;
import dev.caduceus.spi.http.HttpHandler;
import dev.caduceus.spi.http.Routes;

/**
 * The {@code responses} family: create (also in the background), list, retrieve (or replay), delete, cancel
 * and list input items, and its capability flags.
 */
record ResponsesFamily(HttpHandler create, HttpHandler list, HttpHandler retrieve, HttpHandler delete,
                       HttpHandler inputItems, HttpHandler cancel, HttpHandler inputTokens, ResponsesSettings settings)
        implements EndpointFamily {
    static final String ITEM = CreateHandler.PATH + "/{response_id}";
    static final String INPUT_ITEMS = ITEM + "/input_items";
    static final String CANCEL = ITEM + "/cancel";

    @Override public String id() { return "responses"; }

    @Override public String basePath() { return CreateHandler.PATH; }

    @Override
    public void routes(Routes routes) {
        routes.post(CreateHandler.PATH, "responses", create);
        routes.get(CreateHandler.PATH, "response_list", list);
        routes.get(ITEM, "response", retrieve);
        routes.delete(ITEM, null, delete);
        routes.get(INPUT_ITEMS, "response_input_items", inputItems);
        routes.post(CANCEL, "response_cancel", cancel);
        routes.post(InputTokensHandler.PATH, "response_input_tokens", inputTokens);
    }

    /** The host merges the nested {@code idempotency} object with endpoint-chat's key by key. */
    @Override
    public ObjectNode features() {
        var features = JsonNodeFactory.instance.objectNode()
                .put("responses_api", true)
                .put("responses_streaming", true)
                .put("responses_event_replay", true)
                .put("responses_input_items", true)
                .put("client_tools", true)
                .put("responses_background", true)
                .put("responses_cancel", true);
        features.putObject("idempotency").putObject("responses")
                .put("supported", true)
                .put("durable", false)
                .put("retention_seconds", settings.idempotencyTtl().toSeconds());
        return features;
    }
}
