package dev.caduceus.platform.host.webhooks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.host.Poll;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.host.config.PlatformConfig;
import dev.caduceus.platform.host.config.Secret;
import dev.caduceus.platform.host.metrics.MetricsRegistry;
import dev.caduceus.platform.host.outbound.OutboundClient;
import dev.caduceus.platform.host.outbound.ProxyRules;
import dev.caduceus.platform.host.store.Database;
import dev.caduceus.platform.host.store.Migrations;
import dev.caduceus.platform.host.store.PlatformMigrations;
import dev.caduceus.platform.host.store.PostgresTarget;
import dev.caduceus.platform.testkit.postgres.TestPostgres;
import dev.caduceus.spi.webhook.Webhook;
import java.net.InetAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link WebhookDispatcher} and the outbox on real databases, sending to a real receiver on loopback: every
 * event written in a transaction is delivered; on one PostgreSQL database two nodes' dispatchers deliver each
 * event exactly once between them; a delivery whose endpoint left the configuration fails with the reason.
 */
@Timeout(120)
class WebhookDispatcherTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String SECRET = Base64.getEncoder().encodeToString("dispatcher-test-secret-0123456789ab".getBytes());

    @TempDir Path dir;
    Server receiver;
    ServerConnector connector;
    final Map<String, AtomicInteger> received = new ConcurrentHashMap<>();
    OutboundClient client;

    @BeforeEach
    void start() throws Exception {
        receiver = new Server();
        connector = new ServerConnector(receiver, 1, 1);
        connector.setHost("127.0.0.1");
        receiver.addConnector(connector);
        receiver.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                received.computeIfAbsent(request.getHeaders().get("webhook-id"), k -> new AtomicInteger()).incrementAndGet();
                response.setStatus(204);
                callback.succeeded();
                return true;
            }
        });
        receiver.start();
        client = new OutboundClient(ProxyRules.direct(), "caduceus-test");
    }

    @AfterEach
    void stop() throws Exception {
        receiver.stop();
        client.close();
    }

    PlatformConfig.Webhooks settings(List<PlatformConfig.Webhooks.Endpoint> endpoints) {
        return new PlatformConfig.Webhooks(List.of(new Secret(SECRET)), endpoints, List.of("127.0.0.1"),
                Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofHours(1));
    }

    DeploymentWebhooks webhooks(PlatformConfig.Webhooks settings, String platformSchema) {
        return new DeploymentWebhooks(settings, JSON, Clock.systemUTC(), InetAddress::getAllByName, platformSchema);
    }

    WebhookDispatcher dispatcher(Database db, DeploymentWebhooks webhooks, String node) {
        return new WebhookDispatcher(db, webhooks, new WebhookSender(client, Clock.systemUTC(), "caduceus-test"),
                Clock.systemUTC(), node, new MetricsRegistry().host(), new SecureRandom());
    }

    Webhook hook() {
        return new Webhook(URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/hook"), List.of());
    }

    void enqueue(Database db, DeploymentWebhooks webhooks, int count) {
        db.write(sql -> {
            for (int i = 0; i < count; i++)
                webhooks.enqueue(sql, new WebhookEvent("run.completed", Instant.now(), "admin", "run_" + i + ":9",
                        JSON.createObjectNode().put("run_id", "run_" + i)), hook());
            return null;
        });
    }

    @Test
    void everyEventWrittenIsDeliveredOnce() {
        try (var db = Database.open(dir.resolve("caduceus.db"))) {
            Migrations.apply(db, Migrations.PLATFORM, PlatformMigrations.scripts(db.dialect()));
            var webhooks = webhooks(settings(List.of()), "");
            enqueue(db, webhooks, 50);
            enqueue(db, webhooks, 50); // the same events written again (a retried commit): one message each
            try (var dispatcher = dispatcher(db, webhooks, "node_a")) {
                dispatcher.start();
                Poll.until(Duration.ofSeconds(60), "50 delivered", () -> received.size(), n -> n == 50);
                Poll.until(Duration.ofSeconds(30), "all marked delivered", () -> db.read(sql ->
                        sql.queryOne("SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'delivered'",
                                r -> r.getLong(1)).orElseThrow()), n -> n == 50);
            }
            assertTrue(received.values().stream().allMatch(c -> c.get() == 1), received.toString());
        }
    }

    @Test
    void twoNodesOnOnePostgresqlDeliverEachEventExactlyOnce() {
        var pg = TestPostgres.shared().newDatabase();
        try (var one = Database.connect(PostgresTarget.parse(pg.url(), Optional.empty(), Optional.empty()), 4);
             var two = Database.connect(PostgresTarget.parse(pg.url(), Optional.empty(), Optional.empty()), 4)) {
            Migrations.apply(one, Migrations.PLATFORM, PlatformMigrations.scripts(one.dialect()));
            var table = Database.schemaOf(Migrations.PLATFORM) + ".";
            for (var node : List.of("node_one", "node_two")) // both live: neither takes the other's leases
                one.write(sql -> sql.update("INSERT INTO cluster_nodes (node_id, host, pid, started_at, renewed_at) "
                        + "VALUES (?, 'test', 1, 0, 0)", node));
            var webhooksOne = webhooks(settings(List.of()), table);
            var webhooksTwo = webhooks(settings(List.of()), table);
            try (var first = dispatcher(one, webhooksOne, "node_one"); var second = dispatcher(two, webhooksTwo, "node_two")) {
                first.start();
                second.start();
                enqueue(one, webhooksOne, 300);
                Poll.until(Duration.ofSeconds(90), "300 delivered", () -> one.read(sql ->
                        sql.queryOne("SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'delivered'",
                                r -> r.getLong(1)).orElseThrow()), n -> n == 300);
            }
            assertEquals(300, received.size());
            assertTrue(received.values().stream().allMatch(c -> c.get() == 1), "each once: " + received.values().stream()
                    .filter(c -> c.get() != 1).count() + " delivered more than once");
        }
    }

    /**
     * A configured endpoint that fails for the whole retry window (here 600 ms instead of a day) is disabled:
     * its first delivery gives up after retries, the next fails as disabled, and one after that is not even sent.
     */
    @Test
    void anEndpointThatFailsForTheRetryWindowIsDisabled() throws Exception {
        int closed;
        try (var socket = new java.net.ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        try (var db = Database.open(dir.resolve("caduceus.db"))) {
            Migrations.apply(db, Migrations.PLATFORM, PlatformMigrations.scripts(db.dialect()));
            var endpoint = new PlatformConfig.Webhooks.Endpoint(URI.create("http://127.0.0.1:" + closed + "/down"),
                    List.of(), List.of(new Secret(SECRET)), true);
            var settings = new PlatformConfig.Webhooks(List.of(new Secret(SECRET)), List.of(endpoint), List.of(),
                    Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(600));
            var webhooks = webhooks(settings, "");
            try (var dispatcher = dispatcher(db, webhooks, "node_a")) {
                dispatcher.start();
                db.write(sql -> {
                    webhooks.enqueue(sql, new WebhookEvent("run.failed", Instant.now(), "admin", "run_1:1",
                            JSON.createObjectNode().put("run_id", "run_1")), null);
                    return null;
                });
                var first = Poll.until(Duration.ofSeconds(30), "the first gave up", () -> db.read(sql -> sql.queryOne(
                        "SELECT last_error, attempts FROM webhook_deliveries WHERE status = 'failed'",
                        r -> r.getString(1) + " after " + r.getInt(2))), Optional::isPresent).orElseThrow();
                assertTrue(first.startsWith("gave up after "), first);
                db.write(sql -> {
                    webhooks.enqueue(sql, new WebhookEvent("run.failed", Instant.now(), "admin", "run_2:1",
                            JSON.createObjectNode().put("run_id", "run_2")), null);
                    return null;
                });
                var second = Poll.until(Duration.ofSeconds(30), "the second failed", () -> db.read(sql -> sql.queryOne(
                        "SELECT last_error, attempts FROM webhook_deliveries WHERE status = 'failed' AND payload LIKE ?",
                        r -> r.getString(1) + " after " + r.getInt(2), "%run_2%")), Optional::isPresent).orElseThrow();
                assertTrue(second.startsWith("the endpoint is disabled"), second);
                db.write(sql -> {
                    webhooks.enqueue(sql, new WebhookEvent("run.failed", Instant.now(), "admin", "run_3:1",
                            JSON.createObjectNode().put("run_id", "run_3")), null);
                    return null;
                });
                var third = Poll.until(Duration.ofSeconds(30), "the third failed", () -> db.read(sql -> sql.queryOne(
                        "SELECT last_error, attempts FROM webhook_deliveries WHERE status = 'failed' AND payload LIKE ?",
                        r -> r.getString(1) + " after " + r.getInt(2), "%run_3%")), Optional::isPresent).orElseThrow();
                assertTrue(third.startsWith("the endpoint is disabled") && third.endsWith(" after 0"),
                        "failed without an attempt: " + third);
            }
        }
    }

    @Test
    void aDeliveryWhoseEndpointLeftTheConfigurationFailsWithTheReason() {
        try (var db = Database.open(dir.resolve("caduceus.db"))) {
            Migrations.apply(db, Migrations.PLATFORM, PlatformMigrations.scripts(db.dialect()));
            var endpoint = new PlatformConfig.Webhooks.Endpoint(URI.create("http://127.0.0.1:" + connector.getLocalPort()
                    + "/endpoint"), List.of("run.failed"), List.of(new Secret(SECRET)), true);
            var before = webhooks(settings(List.of(endpoint)), "");
            db.write(sql -> {
                before.enqueue(sql, new WebhookEvent("run.failed", Instant.now(), "admin", "run_x:3",
                        JSON.createObjectNode().put("run_id", "run_x")), null);
                before.enqueue(sql, new WebhookEvent("run.completed", Instant.now(), "admin", "run_y:3",
                        JSON.createObjectNode().put("run_id", "run_y")), null); // not wanted by the endpoint: none
                return null;
            });
            assertEquals(1L, (long) db.read(sql -> sql.queryOne("SELECT COUNT(*) FROM webhook_deliveries",
                    r -> r.getLong(1)).orElseThrow()));
            try (var dispatcher = dispatcher(db, webhooks(settings(List.of()), ""), "node_a")) {
                dispatcher.start();
                var error = Poll.until(Duration.ofSeconds(30), "failed", () -> db.read(sql -> sql.queryOne(
                        "SELECT last_error FROM webhook_deliveries WHERE status = 'failed'", r -> r.getString(1))),
                        Optional::isPresent).orElseThrow();
                assertEquals("the endpoint is no longer in webhooks.endpoints", error);
            }
            assertTrue(received.isEmpty(), "nothing was sent");
        }
    }
}
