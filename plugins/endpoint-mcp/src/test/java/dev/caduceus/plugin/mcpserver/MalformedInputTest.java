package dev.caduceus.plugin.mcpserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.testkit.HostClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What /mcp answers to what is not a good MCP request: JSON-RPC errors in JSON (never HTML or a stack
 * trace) for the protocol's faults, the host's JSON errors for HTTP's.
 */
class MalformedInputTest {
    static McpHost mcp;

    @BeforeAll
    static void boot() {
        mcp = McpHost.start(b -> b.env("CADUCEUS__SERVER__MAX_BODY_BYTES", "4096"));
    }

    @AfterAll
    static void close() {
        mcp.close();
    }

    @Test
    void aBodyThatIsNotJsonIsAParseErrorWith400() {
        var response = mcp.post(mcp.http, "{\"jsonrpc\":\"2.0\",\"id\":1,");
        assertRpcError(response, 400, -32700);
        assertTrue(response.json().path("id").isNull(), response.body());
        assertRpcError(mcp.post(mcp.http, "not json at all"), 400, -32700);
    }

    @Test
    void jsonThatIsNotOneMcpMessageIsAnInvalidRequestWith400() {
        assertRpcError(mcp.post(mcp.http, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]"), 400, -32600);
        assertRpcError(mcp.post(mcp.http, "\"ping\""), 400, -32600);
        assertRpcError(mcp.post(mcp.http, "{\"jsonrpc\":\"2.0\",\"id\":1}"), 400, -32600);
        assertRpcError(mcp.post(mcp.http, "{\"id\":1,\"method\":\"ping\"}"), 400, -32600);
    }

    @Test
    void fieldsOfTheWrongTypeAreAnInvalidRequestCarryingTheIdWhenItWasValid() {
        var version = mcp.post(mcp.http, "{\"jsonrpc\":\"1.0\",\"id\":7,\"method\":\"ping\"}");
        assertRpcError(version, 400, -32600);
        assertEquals(7, version.json().path("id").asInt(), version.body());
        var method = mcp.post(mcp.http, "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":5}");
        assertRpcError(method, 400, -32600);
        assertEquals("a", method.json().path("id").asText());
        assertRpcError(mcp.post(mcp.http, "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}"), 400, -32600);
        assertRpcError(mcp.post(mcp.http, "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}"), 400, -32600);
        assertRpcError(mcp.post(mcp.http, "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}"), 400, -32600);
        assertRpcError(mcp.post(mcp.http, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":\"x\"}"), 400, -32600);
    }

    @Test
    void anUnknownMethodIsMethodNotFoundInA200Response() {
        var response = mcp.post(mcp.http, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/list\"}");
        assertRpcError(response, 200, -32601);
        assertEquals(3, response.json().path("id").asInt());
    }

    @Test
    void aClientsResponseOrAnUnknownNotificationIsAccepted() {
        assertEquals(202, mcp.post(mcp.http, "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}").status());
        assertEquals(202, mcp.post(mcp.http, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/whatever\"}").status());
        assertEquals(202, mcp.post(mcp.http, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":99}}").status());
    }

    @Test
    void aBodyOverTheLimitIsTheHosts413() {
        var big = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"pad\":\"" + "x".repeat(8000) + "\"}}";
        var response = mcp.post(mcp.http, big);
        assertEquals(413, response.status(), response.body());
        assertEquals("body_too_large", response.error().path("code").asText(), response.body());
    }

    @Test
    void anAcceptWithoutJsonIs406AndAnUnknownProtocolVersionHeaderIs400() {
        var html = mcp.http.post("/mcp", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", "Accept", "text/html");
        assertRpcError(html, 406, -32600);
        var old = mcp.http.post("/mcp", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
                "Accept", "application/json, text/event-stream", "MCP-Protocol-Version", "1999-01-01");
        assertRpcError(old, 400, -32600);
        var none = mcp.http.post("/mcp", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
        assertEquals(200, none.status(), "no Accept at all is fine: " + none.body());
        var known = mcp.http.post("/mcp", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
                "MCP-Protocol-Version", "2025-06-18");
        assertEquals(200, known.status(), known.body());
    }

    @Test
    void getAndDeleteAre405WithAllowPost() {
        for (var method : new String[] {"GET", "DELETE"}) {
            var response = mcp.http.send(method, "/mcp", null, "Accept", "text/event-stream");
            assertEquals(405, response.status(), method + ": " + response.body());
            assertEquals("POST", response.header("Allow").orElse(null), method);
            assertEquals("method_not_allowed", response.error().path("code").asText(), response.body());
        }
    }

    /** A JSON-RPC error answer: HTTP {@code status}, JSON, {@code error.code} {@code code} and a message. */
    static void assertRpcError(HostClient.Response response, int status, int code) {
        assertEquals(status, response.status(), response.body());
        assertTrue(response.header("Content-Type").orElse("").startsWith("application/json"), response.headers().toString());
        assertEquals("2.0", response.json().path("jsonrpc").asText(), response.body());
        assertEquals(code, response.json().path("error").path("code").asInt(), response.body());
        assertTrue(response.json().has("id"), response.body());
        assertTrue(!response.json().path("error").path("message").asText().isBlank(), response.body());
    }
}
