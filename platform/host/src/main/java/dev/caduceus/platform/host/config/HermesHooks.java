package dev.caduceus.platform.host.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.spi.webhook.Webhook;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Hermes' outbound webhooks ({@code hooks.outbound}: a list of {@code {url, events, secret, secret_env, name,
 * timeout}}) read as endpoints of ours, so that a Hermes user's {@code config.yaml} keeps notifying the same
 * receivers. Where the keys mean the same they are taken: {@code url}; {@code secret}, or the variable
 * {@code secret_env} names (which wins), a plain string (not {@code whsec_}) that signs the body as Hermes does
 * ({@code X-Hermes-Signature-256: sha256=<hex>}) and the Standard Webhooks way with its bytes; no secret:
 * unsigned, as in Hermes; {@code timeout} in seconds, at most our 10 s; {@code events}, Hermes' names mapped to
 * ours ({@code on_session_end}: every run, job run and background response that ends; {@code pre_approval_request}:
 * {@code approval.requested}) or ours as they are. Hermes events with no counterpart here (tool and LLM calls,
 * session start, …) and {@code matcher}, {@code rate_limit_per_second} are dropped with a warning; an entry left
 * with no event is skipped with one, as Hermes skips it. Stateless.
 */
final class HermesHooks {
    static final String KEY = "hooks.outbound";
    static final Duration MAX_TIMEOUT = Duration.ofSeconds(10);

    /** Hermes' event names that have a counterpart here, and the events of ours each stands for. */
    static final Map<String, List<String>> MAPPED = Map.of(
            "on_session_end", List.of("run.completed", "run.failed", "run.cancelled", "job.run.completed",
                    "job.run.failed", "response.completed", "response.failed", "response.cancelled"),
            "pre_approval_request", List.of("approval.requested"));

    /** Hermes' other hook events: accepted, and warned about, since nothing here fires them. */
    static final Set<String> UNMAPPED = Set.of("pre_tool_call", "post_tool_call", "transform_terminal_output",
            "transform_tool_result", "pre_llm_call", "post_llm_call", "pre_api_request", "post_api_request",
            "api_request_error", "on_session_start", "on_session_finalize", "on_session_reset", "subagent_start",
            "subagent_stop", "pre_gateway_dispatch", "post_approval_response");

    /** Keys Hermes reads that mean nothing here. */
    private static final List<String> IGNORED = List.of("matcher", "rate_limit_per_second");

    private HermesHooks() {}

    /** The endpoints {@code list} (the value of {@code hooks.outbound}) names; what is dropped goes to {@code warnings}. */
    static List<PlatformConfig.Webhooks.Endpoint> endpoints(JsonNode list, ConfigTree tree, Map<String, String> variables,
                                                           List<String> warnings) {
        var out = new ArrayList<PlatformConfig.Webhooks.Endpoint>();
        if (list == null) return out;
        var source = tree.source(KEY);
        for (int i = 0; i < list.size(); i++) {
            var key = KEY + "[" + i + "]";
            var entry = list.get(i);
            var url = new Values(key + ".url", entry.path("url"), source, false).url();
            var events = new LinkedHashSet<String>();
            if (entry.has("events")) {
                var named = new Values(key + ".events", entry.get("events"), source, false).list();
                for (var event : named) {
                    if (MAPPED.containsKey(event)) events.addAll(MAPPED.get(event));
                    else if (Webhook.EVENTS.contains(event)) events.add(event);
                    else if (UNMAPPED.contains(event))
                        warnings.add(key + ".events in " + source + " names Hermes' " + event
                                + ", which nothing here sends; it is dropped");
                    else throw new Values(key + ".events", entry.get("events"), source, false).invalid("names " + event
                                + ", not an event (one of " + String.join(", ", Webhook.EVENTS) + ", or Hermes' "
                                + String.join(", ", MAPPED.keySet().stream().sorted().toList()) + ")");
                }
                if (events.isEmpty()) {
                    warnings.add(key + " in " + source + " names no event this server sends; the entry is skipped");
                    continue;
                }
            }
            for (var ignored : IGNORED)
                if (entry.has(ignored))
                    warnings.add(key + "." + ignored + " in " + source + " has no meaning here; it is ignored");
            var secrets = secret(entry, key, source, variables).map(HermesHooks::asSecret).map(List::of)
                    .orElse(List.<Secret>of());
            var timeout = MAX_TIMEOUT;
            if (entry.has("timeout")) {
                long seconds = new Values(key + ".timeout", entry.get("timeout"), source, false).integer(1, Long.MAX_VALUE);
                timeout = seconds >= MAX_TIMEOUT.toSeconds() ? MAX_TIMEOUT : Duration.ofSeconds(seconds);
            }
            boolean allowPrivate = entry.has("allow_private")
                    && new Values(key + ".allow_private", entry.get("allow_private"), source, false).bool();
            out.add(new PlatformConfig.Webhooks.Endpoint(java.net.URI.create(url), List.copyOf(events), secrets,
                    allowPrivate, true, timeout));
        }
        return out;
    }

    /** The entry's secret: the variable {@code secret_env} names when it is set, else {@code secret}. */
    private static java.util.Optional<String> secret(JsonNode entry, String key, String source, Map<String, String> variables) {
        if (entry.hasNonNull("secret_env")) {
            var name = new Values(key + ".secret_env", entry.get("secret_env"), source, false).string();
            var value = variables.get(name);
            if (value != null && !value.isEmpty()) return java.util.Optional.of(value);
        }
        if (entry.hasNonNull("secret")) {
            var value = new Values(key + ".secret", entry.get("secret"), source, true).string();
            if (!value.isEmpty()) return java.util.Optional.of(value);
        }
        return java.util.Optional.empty();
    }

    /** A plain secret as the signer holds secrets: the base64 of the bytes it signs with. */
    private static Secret asSecret(String plain) {
        return new Secret(Base64.getEncoder().encodeToString(plain.getBytes(StandardCharsets.UTF_8)));
    }
}
