package dev.caduceus.distribution;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.testkit.ScriptedUpstream;
import dev.caduceus.testkit.Turn;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The attacks of a prompt-injected model on the server's secrets, through the real tools of the
 * assembled server: whatever a tool result carries back never holds the upstream key, the bearer key
 * or a tool backend key, in clear, reversed, hex or base64 (at any alignment, wrapped or not).
 * The assertions are negative on purpose: where a command cannot run at all (a stricter sandbox),
 * nothing leaks either.
 */
class SecretContainmentIT {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String UPSTREAM_KEY = "sk-upstream-e2e-0123456789abcdefXYZ";
    static final String TAVILY_KEY = "tvly-e2e-9876543210fedcbaQRS";
    static final List<String> SECRETS = List.of(UPSTREAM_KEY, TAVILY_KEY, Caduceus.TEST_KEY);

    @TempDir static Path home;
    static ScriptedUpstream upstream;
    static Caduceus server;

    @BeforeAll
    static void start() throws Exception {
        upstream = ScriptedUpstream.start();
        Files.writeString(home.resolve("config.yaml"), "model:\n  api_key: " + UPSTREAM_KEY + "\n");
        var env = new HashMap<>(Caduceus.KEY_ENV);
        env.put("OPENAI_BASE_URL", upstream.baseUrl());
        env.put("CADUCEUS_MODEL", "scripted-model");
        env.put("TAVILY_API_KEY", TAVILY_KEY);
        server = Caduceus.serve(home, env);
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) server.close();
        if (upstream != null) upstream.close();
    }

    @Test
    void theConfigFileReversedDoesNotLeakTheUpstreamKey() throws Exception {
        assertNoSecret(terminal("cat ../config.yaml | rev"));
        assertNoSecret(terminal("rev ../config.yaml | base64"));
    }

    @Test
    void theServerEnvironmentEncodedDoesNotLeakAnyKey() throws Exception {
        assertNoSecret(terminal("tr '\\0' '\\n' < /proc/$PPID/environ | base64"));
        assertNoSecret(terminal("env | base64"));
        assertNoSecret(terminal("env | base64 -w 0"));
        assertNoSecret(terminal("env | xxd -p"));
        assertNoSecret(terminal("env | rev"));
        assertNoSecret(terminal("env | rev | base64"));
    }

    @Test
    void aHardLinkToTheConfigFileIsRefusedByReadFile() throws Exception {
        assertNoSecret(terminal("ln ../config.yaml linked.yaml && echo linked"));
        var read = ask("read_file", "{\"path\":\"linked.yaml\"}");
        assertNoSecret(read);
        if (Files.exists(home.resolve("workspace/linked.yaml")))
            assertTrue(read.contains("protected file"), read);
        var found = ask("search_files", "{\"pattern\":\"api_key\"}");
        assertNoSecret(found);
        assertFalse(found.contains("linked.yaml"), found);
    }

    private static String terminal(String command) throws Exception {
        return ask("terminal", JSON.writeValueAsString(java.util.Map.of("command", command)));
    }

    /** One chat turn in which the model calls {@code tool} once, then answers quoting its result. */
    private static String ask(String tool, String arguments) throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_" + tool, tool, arguments)));
        upstream.enqueue(Turn::quotingLastToolResult);
        var headers = new HashMap<>(Caduceus.KEY_AUTH);
        headers.put("Content-Type", "application/json");
        var response = server.send("POST", "/v1/chat/completions",
                "{\"messages\":[{\"role\":\"user\",\"content\":\"use " + tool + "\"}]}", headers);
        assertEquals(200, response.statusCode(), response.body());
        return JSON.readTree(response.body()).path("choices").get(0).path("message").path("content").asText();
    }

    /** None of the secrets, in any of the forms a command can easily turn it into. */
    private static void assertNoSecret(String text) {
        var flat = text.replace("\\n", "").replace("\n", "");
        for (var secret : SECRETS)
            for (var form : forms(secret))
                assertFalse(flat.contains(form), "leaked " + secret.substring(0, 6) + "… as " + form + " in " + text);
    }

    private static List<String> forms(String secret) {
        var forms = encodings(secret);
        forms.addAll(encodings(new StringBuilder(secret).reverse().toString()));
        return forms;
    }

    private static List<String> encodings(String secret) {
        var bytes = secret.getBytes(UTF_8);
        var forms = new ArrayList<>(List.of(secret, HexFormat.of().formatHex(bytes),
                HexFormat.of().withUpperCase().formatHex(bytes)));
        for (int p = 0; p < 3; p++) {
            // the characters of base64 that depend on the secret alone, when it starts p bytes into a group
            var stream = new byte[p + bytes.length];
            System.arraycopy(bytes, 0, stream, p, bytes.length);
            var encoded = Base64.getEncoder().encodeToString(stream);
            forms.add(encoded.substring((8 * p + 5) / 6, 8 * (p + bytes.length) / 6));
        }
        for (var form : List.copyOf(forms)) forms.add(new StringBuilder(form).reverse().toString());
        return forms;
    }
}
