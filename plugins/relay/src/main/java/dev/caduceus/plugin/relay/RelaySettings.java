package dev.caduceus.plugin.relay;

import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.config.PluginConfig.Setting;
import dev.caduceus.spi.outbound.OutboundHttp;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * What the relay needs to reach the remote server. Immutable.
 *
 * @param target        {@code gateway.proxy_url} without trailing slashes, or null when unset
 * @param key           {@code gateway.proxy_key}, or null (then no {@code Authorization} header)
 * @param connectTimeout connect deadline, TLS handshake included (10 s): exceeded → {@code proxy_unreachable}
 * @param readTimeout   longest silence of the remote, the wait for the answer's headers included
 *                      ({@code gateway.proxy_read_timeout_seconds}) → {@code proxy_timeout}
 * @param toolProgress  send {@code X-Hermes-Tool-Progress: true} ({@code plugins.relay.tool_progress})
 * @param modelName     the front's advertised model name, sent as {@code model}
 * @param version       the Caduceus version, for the {@code User-Agent}
 */
record RelaySettings(String target, String key, Duration connectTimeout, Duration readTimeout, boolean toolProgress,
                     String modelName, String version) {

    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

    static final String OWN = "plugins.relay.";
    static final boolean DEFAULT_TOOL_PROGRESS = true;

    /** The one key of its own the relay reads (the {@code gateway.*} keys are the host's). */
    static final Setting TOOL_PROGRESS = Setting.bool(OWN + "tool_progress", DEFAULT_TOOL_PROGRESS,
            "ask the remote server for tool progress (X-Hermes-Tool-Progress: true) so relayed streams show it");

    RelaySettings {
        if (target != null) {
            target = target.strip().replaceAll("/+$", "");
            if (target.isEmpty()) target = null;
        }
    }

    static RelaySettings from(PlatformContext ctx) {
        var gateway = ctx.section("gateway");
        var url = gateway.string("proxy_url").orElse(null);
        var key = gateway.string("proxy_key").filter(s -> !s.isBlank()).orElse(null);
        var read = Duration.ofSeconds(gateway.integer("proxy_read_timeout_seconds", 1800));
        return new RelaySettings(url, key, CONNECT_TIMEOUT, read, ctx.config().bool(TOOL_PROGRESS.key().substring(OWN.length()), DEFAULT_TOOL_PROGRESS),
                ctx.global().modelName(), ctx.global().version());
    }

    /**
     * {@code request} as the relay sends it: the connect timeout, {@link #readTimeout} as the idle
     * timeout, no total (a turn may stream for hours), any address (the operator named the remote).
     */
    OutboundHttp.Request toRemote(OutboundHttp.Request request) {
        return request.withTimeouts(connectTimeout, readTimeout, null).withEgress(OutboundHttp.Egress.any());
    }

    /** {@code request} bounded by {@code total} (idle and total), for the small control requests. */
    OutboundHttp.Request toRemote(OutboundHttp.Request request, Duration total) {
        return request.withTimeouts(connectTimeout, total, total).withEgress(OutboundHttp.Egress.any());
    }

    /** {@code {proxy_url}/v1/chat/completions}. */
    URI chatUri() {
        return URI.create(target + "/v1/chat/completions");
    }

    /** {@code {proxy_url}/v1/runs}. */
    URI runsUri() {
        return URI.create(target + "/v1/runs");
    }

    /** {@code {proxy_url}/v1/runs/{runId}/{action}} ({@code events}, {@code approval}, {@code stop}). */
    URI runUri(String runId, String action) {
        return URI.create(target + "/v1/runs/" + URLEncoder.encode(runId, StandardCharsets.UTF_8) + "/" + action);
    }

    /** {@code scheme://host:port} of the target, for {@code relay.target}. */
    String origin() {
        var uri = URI.create(target);
        int port = uri.getPort() >= 0 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
        return uri.getScheme() + "://" + uri.getHost() + ":" + port;
    }

    @Override
    public String toString() {
        return "RelaySettings[target=" + target + ", key=" + (key == null ? "none" : "***") + "]";
    }
}
