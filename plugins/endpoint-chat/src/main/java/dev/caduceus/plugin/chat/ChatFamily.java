package dev.caduceus.plugin.chat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.http.EndpointFamily;
import dev.caduceus.spi.http.HttpHandler;
import dev.caduceus.spi.http.Routes;

/** The {@code chat} family: one route, {@code POST /v1/chat/completions}, and its capability flags. */
record ChatFamily(HttpHandler handler, ChatSettings settings) implements EndpointFamily {

    @Override public String id() { return "chat"; }

    @Override public String basePath() { return ChatHandler.PATH; }

    @Override
    public void routes(Routes routes) {
        routes.post(ChatHandler.PATH, "chat_completions", handler);
    }

    @Override
    public ObjectNode features() {
        var features = JsonNodeFactory.instance.objectNode()
                .put("chat_completions", true)
                .put("chat_completions_streaming", true)
                .put("tool_progress_events", true)
                .put("model_options", true)
                .put("client_tools", true)
                .put("session_continuity_header", SessionHeaders.SESSION_ID)
                .put("session_key_header", SessionHeaders.SESSION_KEY)
                .put("tool_progress_opt_in_header", ToolProgress.OPT_IN_HEADER);
        // How this deployment shows tool progress on chat streams, and how a request picks another way.
        var progress = features.putObject("tool_progress")
                .put("default", settings.toolProgress().mode().name().toLowerCase(java.util.Locale.ROOT))
                .put("header", ToolProgress.OPT_IN_HEADER)
                .put("header_overrides", settings.toolProgress().headerOverrides());
        var modes = progress.putArray("modes");
        for (var mode : ToolProgress.Mode.values()) modes.add(mode.name().toLowerCase(java.util.Locale.ROOT));
        features.putObject("idempotency").putObject("chat_completions")
                .put("supported", true)
                .put("durable", false)
                .put("retention_seconds", settings.idempotencyTtl().toSeconds());
        return features;
    }
}
