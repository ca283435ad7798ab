package dev.caduceus.spi.agent;

/**
 * How a run is kept and answered, beyond its {@link RunRequest}. Immutable.
 *
 * <p>A <em>durable</em> run (runs API, job firings) has a status record and an event journal in the
 * host's database: it is listed and findable for {@code runs.retention_days}, resumable by sequence
 * number, survives a restart as {@code interrupted}, and has an approval channel. An ephemeral run
 * (chat, Responses) lives in memory only and is never listed.
 *
 * @param durable        whether the run is journaled in the database
 * @param idempotencyKey the caller's {@code Idempotency-Key}, or null (durable runs only)
 * @param fingerprint    the request fingerprint stored with the key (a replay must match it, else 409), or null
 * @param webhook        where the run's events are also sent (durable runs only), or null
 * @param interactive    whether the run may wait on people and its caller: ask approvals, and wait for the caller's
 *                       outputs of its own tool calls ({@code requires_action}). Without, as for an ephemeral run, an
 *                       approval is denied at once and the caller's calls end the turn (a Responses turn, also a
 *                       background one, whose caller answers in its next request). Durable runs only.
 */
public record RunOptions(boolean durable, String idempotencyKey, String fingerprint,
                         dev.caduceus.spi.webhook.Webhook webhook, boolean interactive) {
    public RunOptions(boolean durable, String idempotencyKey, String fingerprint) {
        this(durable, idempotencyKey, fingerprint, null);
    }

    /** Interactive when durable. */
    public RunOptions(boolean durable, String idempotencyKey, String fingerprint, dev.caduceus.spi.webhook.Webhook webhook) {
        this(durable, idempotencyKey, fingerprint, webhook, durable);
    }

    public RunOptions {
        if (webhook != null && !durable) throw new IllegalArgumentException("only durable runs take a webhook");
        if ((idempotencyKey == null) != (fingerprint == null))
            throw new IllegalArgumentException("idempotencyKey and fingerprint go together");
        if (idempotencyKey != null && !durable) throw new IllegalArgumentException("only durable runs take an idempotency key");
        if (interactive && !durable) throw new IllegalArgumentException("only durable runs wait on people and their caller");
    }

    /** An in-memory run (chat, Responses). */
    public static RunOptions ephemeral() {
        return new RunOptions(false, null, null);
    }

    /** A journaled run without an idempotency key. */
    public static RunOptions journaled() {
        return new RunOptions(true, null, null);
    }

    /** These options with the run's events also sent to {@code hook} (checked by {@link Runs#start}). */
    public RunOptions withWebhook(dev.caduceus.spi.webhook.Webhook hook) {
        return new RunOptions(durable, idempotencyKey, fingerprint, hook, interactive);
    }

    /** These options for a run that never waits on people or its caller (see {@code interactive}). */
    public RunOptions withoutWaiting() {
        return new RunOptions(durable, idempotencyKey, fingerprint, webhook, false);
    }

    /** A journaled run recorded under {@code key} with the request's {@code fingerprint}. */
    public static RunOptions journaled(String key, String fingerprint) {
        return new RunOptions(true, key, fingerprint);
    }
}
