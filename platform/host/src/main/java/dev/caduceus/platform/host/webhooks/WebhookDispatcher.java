package dev.caduceus.platform.host.webhooks;

import dev.caduceus.platform.host.store.Database;
import dev.caduceus.spi.metrics.Metrics;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the outbox: one thread of its own claims due deliveries (a lease per node, so that on several nodes
 * each goes out once) and sends each on a virtual thread, at most {@link #CONCURRENCY} at once, so that a slow
 * or failing receiver holds only these threads and never a run. Each attempt ends delivered, pending again
 * after {@link Backoff}'s wait (timeouts, 429, 5xx; a receiver's {@code Retry-After}), or failed (another 4xx,
 * a redirect, an address the egress policy refuses, or the retry window past). It looks for work every
 * {@link #POLL}, and at once when {@link #wake}d.
 *
 * <p>Metrics: {@code caduceus_webhook_deliveries_total{result}} (delivered, retried, failed), the latency of a
 * delivery from its event to its 2xx ({@code caduceus_webhook_delivery_latency_seconds}), and the deliveries
 * waiting ({@code caduceus_webhook_queue_depth}).
 */
public final class WebhookDispatcher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WebhookDispatcher.class);
    static final Duration POLL = Duration.ofMillis(250);
    static final Duration LEASE = Duration.ofSeconds(30); // well past one attempt's 10 s
    static final int BATCH = 64;
    static final int CONCURRENCY = 16;

    private final Database database;
    private final DeploymentWebhooks webhooks;
    private final WebhookSender sender;
    private final Backoff backoff;
    private final Clock clock;
    private final String node;
    private final RandomGenerator random;
    private final Semaphore slots = new Semaphore(CONCURRENCY);
    private final Semaphore wake = new Semaphore(0);
    private final Metrics.Counter results;
    private final Metrics.Histogram latency;
    /** Configured endpoints failing without a success since: one that fails for the retry window is disabled. */
    private final java.util.Map<String, Instant> failingSince = new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.Set<String> disabled = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    private volatile long queued;
    private Thread thread;

    public WebhookDispatcher(Database database, DeploymentWebhooks webhooks, WebhookSender sender, Clock clock, String node,
                             Metrics metrics, RandomGenerator random) {
        this.database = database;
        this.webhooks = webhooks;
        this.sender = sender;
        var settings = webhooks.settings();
        this.backoff = new Backoff(settings.retryInitial(), settings.retryMax(), settings.retryFor());
        this.clock = clock;
        this.node = node;
        this.random = random;
        this.results = metrics.counter("webhook_deliveries", "Webhook delivery attempts by result: delivered, "
                + "retried (pending again) or failed (for good)", "result");
        this.latency = metrics.timer("webhook_delivery_latency", "From a webhook's event to its receiver's 2xx");
        metrics.gauge("webhook_queue_depth", "Webhook deliveries waiting to be sent", () -> queued);
    }

    /** Starts sending, first freeing what this node's previous process had leased; once. */
    public synchronized void start() {
        if (thread != null) return;
        database.write(sql -> {
            WebhookOutbox.release(sql, node);
            return null;
        });
        thread = Thread.ofPlatform().name("caduceus-webhooks").daemon(true).start(this::loop);
    }

    /** Looks for due deliveries now (an event was just committed). */
    public void wake() {
        if (wake.availablePermits() == 0) wake.release();
    }

    private void loop() {
        while (!closed) {
            int claimed = 0;
            try {
                claimed = sendDue();
            } catch (RuntimeException e) {
                LOG.warn("Webhooks: could not read the outbox; trying again", e);
            }
            if (claimed >= BATCH) continue;
            try {
                wake.tryAcquire(POLL.toMillis(), TimeUnit.MILLISECONDS);
                wake.drainPermits();
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Claims what is due and hands each to a sending thread; returns how many it claimed. */
    int sendDue() throws RuntimeException {
        var now = clock.instant();
        var rows = database.write(sql -> {
            queued = WebhookOutbox.pending(sql);
            return WebhookOutbox.claim(sql, node, now, now.plus(LEASE), BATCH);
        });
        for (var row : rows) {
            try {
                slots.acquire();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return rows.size();
            }
            Thread.ofVirtual().name("webhook-" + row.id()).start(() -> {
                try {
                    deliver(row);
                } catch (RuntimeException e) {
                    LOG.warn("Webhooks: delivery {} failed unexpectedly; its lease will run out and it is tried again",
                            row.id(), e);
                } finally {
                    slots.release();
                }
            });
        }
        return rows.size();
    }

    /** One attempt at {@code row}, and what it leaves in the outbox. */
    void deliver(WebhookOutbox.Row row) {
        var target = webhooks.target(row);
        if (target.isEmpty()) {
            finish(row, WebhookOutbox.FAILED, 0, null, row.target().equals(DeploymentWebhooks.ENDPOINT)
                    ? "the endpoint is no longer in webhooks.endpoints" : "webhooks.secret is no longer set", null);
            results.inc("failed");
            return;
        }
        boolean endpoint = row.target().equals(DeploymentWebhooks.ENDPOINT);
        if (endpoint && disabled.contains(row.url())) {
            finish(row, WebhookOutbox.FAILED, 0, null, "the endpoint is disabled: it failed for "
                    + human(backoff.retryFor()) + " without a success (a restart enables it again)", null);
            results.inc("failed");
            return;
        }
        var message = new WebhookMessage(row.messageId(), row.eventType(), row.createdAt(),
                row.payload().getBytes(StandardCharsets.UTF_8));
        var outcome = sender.send(target.get(), message);
        var now = clock.instant();
        if (endpoint) health(row.url(), outcome, now);
        switch (outcome) {
            case DeliveryOutcome.Delivered d -> {
                finish(row, WebhookOutbox.DELIVERED, d.status(), null, null);
                results.inc("delivered");
                latency.record(Duration.between(row.createdAt(), now));
            }
            case DeliveryOutcome.Retry r -> {
                var next = backoff.next(row.attempts() + 1, row.createdAt(), now, r.retryAfter(), random);
                if (next.isPresent()) {
                    finish(row, WebhookOutbox.PENDING, status(r.error()), r.error(), next.get());
                    results.inc("retried");
                } else {
                    finish(row, WebhookOutbox.FAILED, status(r.error()), "gave up after " + (row.attempts() + 1)
                            + " attempts: " + r.error(), null);
                    results.inc("failed");
                }
            }
            case DeliveryOutcome.Rejected r -> {
                finish(row, WebhookOutbox.FAILED, status(r.error()), r.error(), null);
                results.inc("failed");
            }
        }
    }

    /**
     * Follows a configured endpoint's health: a success clears it; failing without a success for the retry
     * window ({@code webhooks.retry.for}, a day by default) disables it on this node, with one warning.
     */
    private void health(String url, DeliveryOutcome outcome, Instant now) {
        if (outcome instanceof DeliveryOutcome.Delivered) {
            failingSince.remove(url);
            return;
        }
        var since = failingSince.computeIfAbsent(url, u -> now);
        if (!now.isBefore(since.plus(backoff.retryFor())) && disabled.add(url))
            LOG.warn("Webhooks: endpoint {} has failed since {} without a success ({}); disabled until the server restarts",
                    url, since, outcome.summary());
    }

    private void finish(WebhookOutbox.Row row, String status, Integer httpStatus, String error, Instant next) {
        finish(row, status, 1, httpStatus, error, next);
    }

    private void finish(WebhookOutbox.Row row, String status, int attempted, Integer httpStatus, String error, Instant next) {
        database.write(sql -> {
            WebhookOutbox.finish(sql, row.id(), status, attempted, httpStatus, error, clock.instant(), next);
            return null;
        });
        if (next != null) wake(); // a Retry-After of 0 is due at once
    }

    private static String human(Duration d) {
        if (d.toSeconds() >= 3600 && d.toSeconds() % 3600 == 0) return d.toHours() + " h";
        if (d.toSeconds() >= 60 && d.toSeconds() % 60 == 0) return d.toMinutes() + " min";
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    /** The HTTP status an error line starts with ({@code HTTP 503: …}), or null. */
    private static Integer status(String error) {
        if (error == null || !error.startsWith("HTTP ")) return null;
        try {
            return Integer.parseInt(error.substring(5, Math.min(error.length(), 8)));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** Stops claiming; deliveries being sent finish (or their leases run out and another start sends them). */
    @Override
    public void close() {
        closed = true;
        wake.release();
        var t = thread;
        if (t != null) {
            try {
                t.join(Duration.ofSeconds(5));
                if (!slots.tryAcquire(CONCURRENCY, 10, TimeUnit.SECONDS))
                    LOG.warn("Webhooks: deliveries still being sent at shutdown; they are sent again after the next start");
                else slots.release(CONCURRENCY);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
