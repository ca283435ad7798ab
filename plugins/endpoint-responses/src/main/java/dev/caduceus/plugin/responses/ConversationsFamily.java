package dev.caduceus.plugin.responses;

import dev.caduceus.spi.http.EndpointFamily;
import dev.caduceus.spi.http.HttpHandler;
import dev.caduceus.spi.http.Routes;

/**
 * The {@code conversations} family, the plugin's second: {@code GET /api/conversations} and
 * {@code DELETE /api/conversations/{name}} over the conversation names of the responses store. A family
 * of its own because a family has one base path; so a key limited with {@code --families} needs
 * {@code conversations} as well as {@code responses} to use them. No feature flags. Immutable.
 */
record ConversationsFamily(HttpHandler list, HttpHandler delete) implements EndpointFamily {
    static final String PATH = "/api/conversations";
    static final String ITEM = PATH + "/{name}";

    @Override public String id() { return "conversations"; }

    @Override public String basePath() { return PATH; }

    @Override
    public void routes(Routes routes) {
        routes.get(PATH, "conversation_list", list);
        routes.delete(ITEM, "conversation_delete", delete);
    }
}
