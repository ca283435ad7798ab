package dev.caduceus.platform.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The host boots for real; the plugin tests (endpoint-runs and others) exercise it with plugins. */
class TestHostTest {

    @Test
    void bootsTheRealHostOnLoopbackWithItsKeyAndCleansUp() throws Exception {
        Path home;
        try (var host = TestHost.builder().apiKey("a-key-for-this-test-only-1234").start()) {
            home = host.home();
            assertEquals("127.0.0.1", host.baseUrl().getHost());
            assertTrue(host.output().contains("listening on http://127.0.0.1:" + host.baseUrl().getPort()), host.output());
            assertTrue(Files.exists(home.resolve("caduceus.db")), "the real SQLite state database");
            var health = host.http().get("/health");
            assertEquals(200, health.status(), health.body());
            var detailed = host.http().withoutKey().get("/health/detailed");
            assertEquals(401, detailed.status());
            assertFalse(detailed.error().path("code").isMissingNode(), "a contract error body: " + detailed.body());
            assertEquals(200, host.http().get("/health/detailed").status());
            assertEquals(401, host.http().withKey("wrong-key-wrong-key-wrong").get("/health/detailed").status());
        }
        assertFalse(Files.exists(home), "close() deletes the host's directories");
    }

    @Test
    void aNamedKeyAddedAsTheCliDoesWorksOnTheRunningHostAtOnce() {
        try (var host = TestHost.builder().start()) {
            var unknown = "cdk_0123456789abcdef_" + "a".repeat(43);
            assertEquals(401, host.http().withKey(unknown).get("/health/detailed").status());
            var alice = host.addKey("alice");
            assertTrue(alice.matches("cdk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}"), alice);
            var answer = host.http().withKey(alice).get("/health/detailed");
            assertEquals(200, answer.status(), answer.body());
            assertEquals(200, host.http().withKey(host.addKey("bob", "chat", "responses")).get("/health/detailed").status());
            var taken = assertThrows(IllegalArgumentException.class, () -> host.addKey("alice"));
            assertTrue(taken.getMessage().contains("exists already"), taken.getMessage());
            assertThrows(IllegalArgumentException.class, () -> host.addKey("admin"), "reserved, as on the CLI");
        }
    }

    @Test
    void theBuildersClockIsThePlatformsClock() throws Exception {
        var clock = new ManualClock(java.time.Instant.parse("2026-01-15T09:00:00Z"));
        try (var host = TestHost.builder().clock(clock).start()) {
            var detailed = host.http().get("/health/detailed").json();
            assertEquals("2026-01-15T09:00:00+00:00", detailed.path("platforms").path("api_server").path("updated_at").asText(),
                    detailed.toString());
            clock.advance(java.time.Duration.ofHours(1));
            assertEquals("2026-01-15T10:00:00+00:00", host.http().get("/health/detailed").json()
                    .path("platforms").path("api_server").path("updated_at").asText());
        }
    }

    @Test
    void theDeploymentServicesAndConfigReferenceAreTheHostsOwn() {
        try (var host = TestHost.builder().start()) {
            var deployment = host.deployment();
            assertEquals(List.of(), deployment.plugins(), "no plugin jars");
            assertEquals(List.of(), deployment.tools());
            assertEquals(List.of(), deployment.toolsets());
            assertTrue(deployment.routes().stream().anyMatch(r -> r.path().equals("/health/detailed")),
                    deployment.routes().toString());
            assertEquals(List.of(), host.services(dev.caduceus.support.services.ResponseHistory.class),
                    "a service no plugin offers is not there");
            var reference = host.configReference();
            assertTrue(reference.startsWith("# Configuration reference"), reference);
            assertTrue(reference.lines().anyMatch(l -> l.startsWith("| `server.port` | ") && l.contains("| host |")),
                    reference);
        }
    }

    @Test
    void aClassesDirectoryBecomesAValidPluginJar(@TempDir Path dir) throws Exception {
        var classes = Files.createDirectories(dir.resolve("demo").resolve("target").resolve("classes"));
        var own = Path.of(Turn.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        var turn = classes.resolve("dev/caduceus/platform/testkit/Turn.class");
        Files.createDirectories(turn.getParent());
        Files.copy(own.resolve("dev/caduceus/platform/testkit/Turn.class"), turn);
        var services = classes.resolve(PluginJarAssertions.SERVICES);
        Files.createDirectories(services.getParent());
        Files.writeString(services, Turn.class.getName() + "\n");
        var jar = dir.resolve("demo.jar");
        PluginJars.write("demo", classes, jar);
        assertEquals(List.of(), PluginJarAssertions.problems(jar));
    }

    @Test
    void aPluginMissingFromTheClassPathIsNamed() {
        var e = assertThrows(IllegalArgumentException.class, () -> PluginJars.locate("no-such-plugin"));
        assertTrue(e.getMessage().startsWith("plugin no-such-plugin is not on the test class path"), e.getMessage());
    }
}
