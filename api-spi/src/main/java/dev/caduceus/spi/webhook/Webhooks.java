package dev.caduceus.spi.webhook;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.store.Sql;
import java.util.Optional;

/**
 * The deployment's webhooks, for a plugin whose own state changes are events callers may want to hear of (a
 * job's run ending, a background response ending): {@link #refusal} checks a webhook a request names before
 * anything starts; {@link #emit} writes an event's deliveries in the plugin's own transaction, so that they
 * commit with the change they tell of, or not at all. The host sends them (signed, retried, once per event
 * across nodes). Found at {@code PlatformContext.webhooks()}.
 *
 * <p>Threading: thread-safe. {@link #emit} runs on the thread of the transaction it is given.
 */
public interface Webhooks {

    /**
     * Why {@code hook} may not be used (answer 400 {@code webhook_not_allowed} with it), or empty when it may:
     * webhooks are off ({@code webhooks.secret} is not set), or its host is private, loopback, link-local or a
     * cloud metadata address (also by a name that resolves to one) and not allowed.
     */
    Optional<String> refusal(Webhook hook);

    /**
     * Writes the deliveries of one event in {@code sql}'s transaction: to {@code hook} (the webhook its request
     * named, or null) when it wants {@code type}, and to each configured endpoint that does.
     *
     * @param type   one of {@link Webhook#EVENTS}
     * @param source unique per event (say, {@code job_…:run_…}): the event's {@code webhook-id} is derived from
     *               it, so writing the same event twice (a retried transaction) delivers it once
     * @param owner  the key the event belongs to (its name), for the deliveries API
     * @param data   ids, status, usage, bounded previews; never a secret, never a transcript
     */
    void emit(Sql sql, String type, String source, String owner, ObjectNode data, Webhook hook);
}
