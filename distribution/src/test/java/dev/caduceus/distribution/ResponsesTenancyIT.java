package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stored responses as tenants' objects on the assembled server: key {@code alice}'s response (its
 * object, replay, input items, deletion, continuation by id) is key {@code bob}'s unknown-id 404,
 * the admin key's to read; conversation names are per key.
 */
class ResponsesTenancyIT {
    static final ObjectMapper JSON = new ObjectMapper();
    static final Pattern PRINTED_KEY = Pattern.compile("^    (cdk_\\S+)$", Pattern.MULTILINE);

    @TempDir static Path home;
    static ScriptedUpstream upstream;
    static Caduceus server;
    static String alice;
    static String bob;

    @BeforeAll
    static void start() throws Exception {
        upstream = ScriptedUpstream.start();
        upstream.setDefault(Turn.text("ok"));
        server = Caduceus.serve(home, Caduceus.upstreamEnv(upstream));
        alice = add("alice");
        bob = add("bob");
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) server.close();
        if (upstream != null) upstream.close();
    }

    static String add(String name) throws Exception {
        try (var process = Caduceus.launch(home, Map.of(), "key", "add", name)) {
            assertEquals(0, process.awaitExit(), process.stderr());
            var m = PRINTED_KEY.matcher(process.stdout());
            assertTrue(m.find(), process.stdout());
            return m.group(1);
        }
    }

    static HttpResponse<String> send(String key, String method, String path, String body) throws Exception {
        return server.send(method, path, body, Map.of("Authorization", "Bearer " + key, "Content-Type", "application/json"));
    }

    static JsonNode json(HttpResponse<String> response) throws Exception {
        return JSON.readTree(response.body());
    }

    static String lastUpstreamBody(int before) {
        return upstream.chatRequests().get(before).body().toString();
    }

    @Test
    void aTenantsResponseIsAnotherTenantsUnknownIdAndTheAdminsToRead() throws Exception {
        var created = send(alice, "POST", "/v1/responses", "{\"input\":\"alice secret 5521\",\"stream\":true}");
        assertEquals(200, created.statusCode(), created.body());
        var id = Pattern.compile("\"id\":\"(resp_[^\"]+)\"").matcher(created.body()).results().findFirst()
                .orElseThrow().group(1);

        for (var path : new String[] {"/v1/responses/" + id, "/v1/responses/" + id + "?stream=true",
                "/v1/responses/" + id + "?stream=true&starting_after=2", "/v1/responses/" + id + "/input_items"}) {
            var other = send(bob, "GET", path, null);
            assertEquals(404, other.statusCode(), path + ": " + other.body());
            assertEquals("response_not_found", json(other).at("/error/code").asText());
            assertEquals(200, send(Caduceus.TEST_KEY, "GET", path, null).statusCode(), path);
            assertEquals(200, send(alice, "GET", path, null).statusCode(), path);
        }
        var continued = send(bob, "POST", "/v1/responses", "{\"input\":\"go on\",\"previous_response_id\":\"" + id + "\"}");
        assertEquals(404, continued.statusCode(), continued.body());
        assertEquals("previous_response_not_found", json(continued).at("/error/code").asText());
        var deleted = send(bob, "DELETE", "/v1/responses/" + id, null);
        assertEquals(404, deleted.statusCode(), deleted.body());
        assertEquals(200, send(alice, "GET", "/v1/responses/" + id, null).statusCode(), "still there");
        assertEquals(200, send(alice, "DELETE", "/v1/responses/" + id, null).statusCode());
    }

    @Test
    void aConversationNameIsEachTenantsOwn() throws Exception {
        assertEquals(200, send(alice, "POST", "/v1/responses",
                "{\"input\":\"the code is alice-9034\",\"conversation\":\"shared\"}").statusCode());
        int before = upstream.chatRequests().size();
        assertEquals(200, send(bob, "POST", "/v1/responses",
                "{\"input\":\"what is the code?\",\"conversation\":\"shared\"}").statusCode());
        assertFalse(lastUpstreamBody(before).contains("alice-9034"), "bob's 'shared' is not alice's");
        int mine = upstream.chatRequests().size();
        assertEquals(200, send(alice, "POST", "/v1/responses",
                "{\"input\":\"what is the code?\",\"conversation\":\"shared\"}").statusCode());
        assertTrue(lastUpstreamBody(mine).contains("alice-9034"), "alice's own conversation goes on");
    }
}
