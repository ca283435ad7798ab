package dev.caduceus.platform.host.webhooks;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.host.config.PlatformConfig;
import dev.caduceus.platform.host.outbound.EgressPolicy;
import dev.caduceus.platform.host.outbound.GuardedResolver;
import dev.caduceus.spi.store.Sql;
import dev.caduceus.spi.webhook.Webhook;
import java.net.UnknownHostException;
import java.time.Clock;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;

/**
 * The deployment's webhooks ({@code webhooks.*}): whether a webhook a request names may be used, and the
 * deliveries an event makes, written in the caller's transaction (to the request's webhook and to each
 * configured endpoint that wants the event), for {@link WebhookDispatcher} to send. Thread-safe.
 */
public final class DeploymentWebhooks implements dev.caduceus.spi.webhook.Webhooks {
    /** {@code target} of a delivery to the webhook a request named, signed with {@code webhooks.secret}. */
    static final String REQUEST = "request";
    /** {@code target} of a delivery to one of {@code webhooks.endpoints}, signed with its secret. */
    static final String ENDPOINT = "endpoint";

    private final PlatformConfig.Webhooks settings;
    private final ObjectMapper json;
    private final Clock clock;
    private final GuardedResolver.Lookup lookup;
    private final String table;
    private final String keys;

    /**
     * @param platformSchema the platform's tables as named from any schema, {@code ""} or {@code "caduceus_platform."}:
     *                       on PostgreSQL a plugin's transaction works in the plugin's schema
     */
    public DeploymentWebhooks(PlatformConfig.Webhooks settings, ObjectMapper json, Clock clock, GuardedResolver.Lookup lookup,
                              String platformSchema) {
        this.table = platformSchema + "webhook_deliveries";
        this.keys = platformSchema + "api_keys";
        this.settings = settings;
        this.json = json;
        this.clock = clock;
        this.lookup = lookup;
    }

    PlatformConfig.Webhooks settings() {
        return settings;
    }

    /**
     * Why {@code hook} may not be used, or empty when it may: no {@code webhooks.secret} to sign with; a host
     * that does not resolve; one that resolves to a cloud metadata address; or one that resolves to any private,
     * loopback or link-local address and is not in {@code webhooks.allow_private_hosts} (a name is resolved
     * here, and again, under the egress policy, at each delivery).
     */
    @Override
    public Optional<String> refusal(Webhook hook) {
        if (settings.secrets().isEmpty())
            return Optional.of("webhooks are not enabled on this server (webhooks.secret is not set)");
        var host = hook.url().getHost().toLowerCase(Locale.ROOT);
        if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
        java.net.InetAddress[] addresses;
        try {
            addresses = lookup.all(host);
        } catch (UnknownHostException e) {
            return Optional.of("webhook host " + host + " does not resolve");
        }
        boolean allowed = privateAllowed(hook.url());
        for (var address : addresses) {
            if (EgressPolicy.isMetadata(address))
                return Optional.of("webhook host " + host + " is a cloud metadata address");
            if (!allowed && EgressPolicy.isInternal(address))
                return Optional.of("webhook host " + host + " is a private, loopback or link-local address ("
                        + address.getHostAddress() + "); webhooks.allow_private_hosts may list it");
        }
        return Optional.empty();
    }

    /**
     * Writes {@code event}'s deliveries in {@code sql}'s transaction: to {@code requested} (the webhook the
     * request named, or null) when it wants the event, and to each configured endpoint that does. Nothing when
     * no one does.
     */
    public void enqueue(Sql sql, WebhookEvent event, Webhook requested) {
        String payload = null;
        var now = clock.instant();
        if (requested != null && requested.wants(event.type())) {
            payload = payload(event);
            WebhookOutbox.insert(sql, table, newId(), event, requested.url().toString(), REQUEST,
                    privateAllowed(requested.url()), payload, now);
        }
        var keyHook = keyWebhook(sql, event.owner());
        if (keyHook.isPresent() && !settings.secrets().isEmpty()
                && (requested == null || !requested.url().toString().equals(keyHook.get()))) {
            if (payload == null) payload = payload(event);
            WebhookOutbox.insert(sql, table, newId(), event, keyHook.get(), REQUEST,
                    privateAllowed(java.net.URI.create(keyHook.get())), payload, now);
        }
        for (var endpoint : settings.endpoints()) {
            if (!endpoint.wants(event.type())) continue;
            if (payload == null) payload = payload(event);
            WebhookOutbox.insert(sql, table, newId(), event, endpoint.url().toString(), ENDPOINT, endpoint.allowPrivate(),
                    payload, now);
        }
    }

    @Override
    public void emit(Sql sql, String type, String source, String owner, com.fasterxml.jackson.databind.node.ObjectNode data,
                     Webhook hook) {
        if (!Webhook.EVENTS.contains(type)) throw new IllegalArgumentException("not a webhook event type: " + type);
        if (!enabled()) return;
        enqueue(sql, new WebhookEvent(type, clock.instant(), owner, source, data), hook);
    }

    /** The webhook of named key {@code owner} ({@code caduceus key add … --webhook URL}), if it has one and is live. */
    private Optional<String> keyWebhook(Sql sql, String owner) {
        if (owner == null || owner.equals(dev.caduceus.spi.http.Caller.ADMIN)) return Optional.empty();
        return sql.queryOne("SELECT policy_json FROM " + keys + " WHERE name = ? AND revoked_at IS NULL",
                r -> r.getString(1), owner).flatMap(policy -> {
                    try {
                        var node = json.readTree(policy).path("webhook");
                        return node.isTextual() ? Optional.of(node.asText()) : Optional.<String>empty();
                    } catch (java.io.IOException e) {
                        return Optional.empty();
                    }
                });
    }

    /** Whether {@code url}'s host is in {@code webhooks.allow_private_hosts}. */
    private boolean privateAllowed(java.net.URI url) {
        return settings.allowPrivateHosts().stream().anyMatch(h -> h.equalsIgnoreCase(url.getHost()));
    }

    /** Whether any event could be delivered at all: a secret for requests' webhooks, or an endpoint. */
    public boolean enabled() {
        return !settings.secrets().isEmpty() || !settings.endpoints().isEmpty();
    }

    /** How a stored delivery is sent now: its signer from the current configuration; empty when there is none. */
    Optional<WebhookSender.Target> target(WebhookOutbox.Row row) {
        var url = java.net.URI.create(row.url());
        if (row.target().equals(ENDPOINT)) {
            return settings.endpoints().stream().filter(e -> e.url().toString().equals(row.url())).findFirst()
                    .map(e -> new WebhookSender.Target(url, e.secrets().isEmpty() ? Optional.empty()
                            : Optional.of(WebhookSigner.of(e.secrets())), e.hermes(), e.allowPrivate(), e.timeout()));
        }
        if (settings.secrets().isEmpty()) return Optional.empty();
        return Optional.of(new WebhookSender.Target(url, WebhookSigner.of(settings.secrets()), row.allowPrivate()));
    }

    private String payload(WebhookEvent event) {
        try {
            return json.writeValueAsString(event.body(json));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String newId() {
        return "whd_" + UUID.randomUUID().toString().replace("-", "");
    }
}
