package dev.caduceus.plugin.responses;

import dev.caduceus.spi.http.EndpointFamily;
import dev.caduceus.spi.http.Routes;

/**
 * The {@code conversations_api} family, the plugin's third: OpenAI's Conversations API under
 * {@code /v1/conversations} ({@link ConversationObjectsApi}). A family of its own (one base path per family), so a
 * key limited with {@code --families} needs it to use these routes; {@code conversation: "conv_…"} on
 * {@code POST /v1/responses} is the {@code responses} family's. Immutable.
 */
record ConversationObjectsFamily(ConversationObjectsApi api) implements EndpointFamily {
    static final String PATH = "/v1/conversations";
    static final String ITEM = PATH + "/{conversation_id}";
    static final String ITEMS = ITEM + "/items";
    static final String ONE_ITEM = ITEMS + "/{item_id}";

    @Override public String id() { return "conversations_api"; }

    @Override public String basePath() { return PATH; }

    @Override
    public void routes(Routes routes) {
        routes.post(PATH, "conversation_create", api::create);
        routes.get(ITEM, "conversation", api::retrieve);
        routes.post(ITEM, null, api::update);
        routes.delete(ITEM, null, api::delete);
        routes.get(ITEMS, "conversation_items", api::listItems);
        routes.post(ITEMS, null, api::addItems);
        routes.get(ONE_ITEM, "conversation_item", api::retrieveItem);
        routes.delete(ONE_ITEM, null, api::deleteItem);
    }
}
