package dev.caduceus.plugin.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.testkit.HostClient;
import dev.caduceus.platform.testkit.TestHost;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The console's routes on the real host: public, strict CSP, content types, caching, JSON 404s. */
class ConsoleRoutesTest {
    static final Map<String, String> SECURITY = Map.of(
            "X-Content-Type-Options", "nosniff",
            "Referrer-Policy", "no-referrer",
            "X-Frame-Options", "DENY",
            "Permissions-Policy", "camera=(), microphone=(), geolocation=()",
            "Strict-Transport-Security", "max-age=31536000; includeSubDomains");

    static TestHost host;
    static HostClient anonymous;

    @BeforeAll
    static void start() {
        host = TestHost.builder().plugins("console").start();
        anonymous = host.http().withoutKey();
    }

    @AfterAll
    static void stop() {
        if (host != null) host.close();
    }

    private static void assertConsoleHeaders(HostClient.Response r) {
        assertEquals(ConsoleFamily.CSP, r.header("Content-Security-Policy").orElse(null), "CSP");
        assertEquals(1, r.headers().allValues("Content-Security-Policy").size(), "one CSP, the console's");
        SECURITY.forEach((name, value) -> assertEquals(value, r.header(name).orElse(null), name));
    }

    @Test
    void thePageLoadsWithoutAKeyAsHtmlThatIsNeverStale() {
        var page = anonymous.get("/console/");
        assertEquals(200, page.status(), page.body());
        assertEquals("text/html; charset=utf-8", page.header("Content-Type").orElse(null));
        assertEquals("no-cache", page.header("Cache-Control").orElse(null));
        assertTrue(page.header("ETag").orElse("").matches("\"[0-9a-f]{24}\""), page.headers().toString());
        assertTrue(page.body().contains("<script type=\"module\" src=\"/console/main.js\"></script>"), page.body());
        assertConsoleHeaders(page);
        assertEquals(200, host.http().get("/console/").status(), "a key changes nothing");
    }

    @Test
    void theBarePathRedirectsToTheFolder() {
        var bare = anonymous.get("/console");
        assertEquals(302, bare.status(), bare.body());
        assertEquals("/console/", bare.header("Location").orElse(null));
        assertConsoleHeaders(bare);
    }

    @Test
    void scriptsAndStylesHaveTheirTypes() {
        for (var file : List.of("main.js", "api.js", "router.js", "format.js", "overview.js", "runs.js", "run.js",
                "jobs.js", "conversations.js", "chat.js")) {
            var r = anonymous.get("/console/" + file);
            assertEquals(200, r.status(), file);
            assertEquals("text/javascript; charset=utf-8", r.header("Content-Type").orElse(null), file);
            assertConsoleHeaders(r);
        }
        assertEquals("text/css; charset=utf-8", anonymous.get("/console/console.css").header("Content-Type").orElse(null));
    }

    @Test
    void anUnchangedFileIsA304WithoutBody() {
        var first = anonymous.get("/console/api.js");
        var etag = first.header("ETag").orElseThrow();
        var again = anonymous.get("/console/api.js", "If-None-Match", etag);
        assertEquals(304, again.status());
        assertEquals("", again.body());
        assertEquals(etag, again.header("ETag").orElse(null));
        assertConsoleHeaders(again);
        assertEquals(304, anonymous.get("/console/api.js", "If-None-Match", "\"other\", " + etag).status());
        assertEquals(200, anonymous.get("/console/api.js", "If-None-Match", "\"other\"").status());
        assertEquals(200, anonymous.get("/console/router.js", "If-None-Match", etag).status(), "another file's tag");
    }

    @Test
    void anUnknownFileIsTheContractsJson404() {
        for (var path : List.of("/console/nope.js", "/console/INDEX.HTML", "/console/index.exe", "/console/.hidden.js",
                "/console/a..js", "/console/x/main.js")) {
            var r = anonymous.get(path);
            assertEquals(404, r.status(), path + ": " + r.body());
            assertEquals("not_found", r.error().path("code").asText(), path);
            assertEquals("invalid_request_error", r.error().path("type").asText(), path);
            assertTrue(r.error().has("param"), path);
            assertTrue(r.header("Content-Type").orElse("").startsWith("application/json"), path);
        }
        assertEquals("Unknown route: GET /console/nope.js", anonymous.get("/console/nope.js").error().path("message").asText());
        assertConsoleHeaders(anonymous.get("/console/nope.js"));
    }

    @Test
    void onlyGetIsServed() {
        var post = anonymous.post("/console/", "{}");
        assertEquals(405, post.status(), post.body());
        assertEquals("method_not_allowed", post.error().path("code").asText());
    }

    @Test
    void theKeyedRoutesStillNeedTheKey() {
        var r = anonymous.get("/health/detailed");
        assertEquals(401, r.status());
        assertFalse(r.body().contains("console"));
    }
}
