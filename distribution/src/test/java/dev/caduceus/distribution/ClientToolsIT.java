package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.net.URI;
import java.nio.file.Files;

import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 42: unmodified agent frameworks from npm (lockfile in {@code src/test/node/agents}) bring their own tool,
 * {@code lookup_code}, to the assembled server, whose agent has its own ({@code add}, the calc plugin). In one agent
 * turn the model calls the server's {@code add}, then the framework's {@code lookup_code}; the framework runs it and
 * sends its result back; the final answer quotes it. The continuation must show the model the server's step it made
 * before (spliced back by the server: the framework never saw it).
 */
class ClientToolsIT {
    private static ScriptedUpstream upstream;
    private static Caduceus server;
    private static URI url;
    private int before;

    @BeforeAll
    static void boot() throws Exception {
        var home = Files.createTempDirectory("client-tools-it");
        upstream = ScriptedUpstream.start();
        ThirdPartyPlugins.calc(home.resolve("plugins"));
        var env = Caduceus.upstreamEnv(upstream);
        env.put("CADUCEUS__AGENT__TOOLSETS", "hermes-api-server,calc");
        server = Caduceus.serve(home, env);
        url = server.awaitListening();
    }

    @AfterAll
    static void shutDown() throws Exception {
        if (server != null) server.close();
        if (upstream != null) upstream.close();
    }

    @BeforeEach
    void reset() {
        upstream.clearQueue();
        before = upstream.chatRequests().size();
    }

    /** The server's add, then the framework's lookup_code, then an answer quoting the last tool result. */
    private static void scriptServerThenClientTool() {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_add", "add", "{\"a\":20,\"b\":22}")));
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_up", "lookup_code", "{\"topic\":\"tea\"}")));
        upstream.enqueue(Turn::quotingLastToolResult);
    }

    private JsonNode runAndCheck(String framework) throws Exception {
        scriptServerThenClientTool();
        var result = NodeAgents.run(framework, url, Caduceus.TEST_KEY, Map.of(), server.stderr());
        assertEquals("[{\"topic\":\"tea\"}]", result.path("executed").toString(), framework + " ran its tool once: " + result);
        assertEquals("Tool result: code-for-tea", result.path("text").asText(), framework + "'s final answer uses its result: " + result);
        assertEquals(3, upstream.chatRequests().size() - before, "three model calls in the turn");
        var last = upstream.chatRequests().getLast().body().path("messages").toString();
        int sum = last.indexOf("{\\\"sum\\\": 42}");
        int code = last.indexOf("code-for-tea");
        assertTrue(sum > 0 && code > sum, framework + ": the model saw the server's add result, then the framework's: " + last);
        assertEquals(1, last.split("\"name\":\"add\"", -1).length - 1,
                framework + ": the server's step once (a resent mcp_call item is not a second one): " + last);
        var offered = upstream.chatRequests().get(before).body().path("tools").toString();
        assertTrue(offered.contains("\"lookup_code\"") && offered.contains("\"add\""), offered);
        return result;
    }

    @Test
    void theAiSdkOnTheOpenAiCompatibleProvider() throws Exception {
        var result = runAndCheck("ai-sdk-compatible");
        assertEquals("[\"tool-calls\",\"stop\"]", result.path("finishReasons").toString(), result.toString());
    }

    @Test
    void langChainBindToolsInAToolLoop() throws Exception {
        var result = runAndCheck("langchain");
        assertEquals("[\"tool_calls\",\"stop\"]", result.path("finishReasons").toString(), result.toString());
    }

    @Test
    void theOpenAiAgentsSdkOnAChatCompletionsModel() throws Exception {
        runAndCheck("agents-chat");
    }

    @Test
    void theAiSdkOnItsOpenAiProviderWhichSpeaksResponses() throws Exception {
        var result = runAndCheck("ai-sdk-openai");
        assertEquals("[\"tool-calls\",\"stop\"]", result.path("finishReasons").toString(), result.toString());
    }

    @Test
    void theOpenAiAgentsSdkOnAResponsesModel() throws Exception {
        runAndCheck("agents-responses");
    }

    /**
     * Clients without tools of their own, on Responses, while the agent runs its own: the AI SDK's generateText once
     * failed with "Invalid JSON response" and the Agents SDK with "Tool add not found in agent".
     */
    @Test
    void responsesClientsWithoutToolsOfTheirOwnTakeTheServersStepsAsDone() throws Exception {
        for (var framework : new String[] {"ai-sdk-openai", "agents-responses"}) {
            before = upstream.chatRequests().size();
            upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_add", "add", "{\"a\":20,\"b\":22}")));
            upstream.enqueue(Turn::quotingLastToolResult);
            var result = NodeAgents.run(framework, url, Caduceus.TEST_KEY, Map.of("NO_CLIENT_TOOLS", "1"), server.stderr());
            assertEquals("Tool result: {\"sum\": 42}", result.path("text").asText(), framework + ": " + result);
            assertEquals(2, upstream.chatRequests().size() - before, framework);
        }
    }

}
