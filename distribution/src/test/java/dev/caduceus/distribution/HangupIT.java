package dev.caduceus.distribution;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A client that hangs up while the agent works (a {@code sleep 30.<digits>} terminal command, or a
 * model that has not answered yet) cancels the run: the slot is free ({@code active_agents} 0) and
 * no such {@code sleep} is left, polled after the close; the stored Responses snapshot says
 * {@code incomplete}. For chat and Responses, streamed and not, on the agent server itself and
 * through a relay front (the front cancels, the relay closes the remote call, the remote notices).
 *
 * <p>The times from the close to "freed" are printed, and with {@code -Dhangup.tries=20} each case
 * runs 20 times and prints its median and maximum: that is the benchmark (bench/README.md); the test
 * itself asserts no time, only that it happens within a generous deadline.
 */
class HangupIT {
    static final ObjectMapper JSON = new ObjectMapper();
    static final int TRIES = Integer.getInteger("hangup.tries", 1);
    static final long DEADLINE_NANOS = 15_000_000_000L;
    static final String FRONT_KEY = "the-front-key-is-long-enough-too";

    @TempDir static Path tmp;
    static ScriptedUpstream upstream;
    static Caduceus back;
    static Caduceus front;
    static final List<String> summary = new ArrayList<>();

    /** What the client sends. */
    enum Shape {
        CHAT_STREAM("/v1/chat/completions", "{\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"wait\"}]}"),
        CHAT("/v1/chat/completions", "{\"messages\":[{\"role\":\"user\",\"content\":\"wait\"}]}"),
        RESPONSES_STREAM("/v1/responses", "{\"stream\":true,\"input\":\"wait\"}"),
        RESPONSES("/v1/responses", "{\"input\":\"wait\"}");

        final String path;
        final String body;

        Shape(String path, String body) {
            this.path = path;
            this.body = body;
        }

        boolean streams() {
            return this == CHAT_STREAM || this == RESPONSES_STREAM;
        }
    }

    @BeforeAll
    static void start() throws Exception {
        upstream = ScriptedUpstream.start();
        upstream.setDefault(Turn.error(500, "no turn scripted for this request"));
        var env = Caduceus.upstreamEnv(upstream);
        env.put("CADUCEUS__MODEL__HEALTH_PROBE", "false");
        back = Caduceus.serve(Files.createDirectories(tmp.resolve("back")), env);
        var frontEnv = new HashMap<String, String>();
        frontEnv.put("API_SERVER_KEY", FRONT_KEY);
        frontEnv.put("GATEWAY_PROXY_URL", back.awaitListening().toString());
        frontEnv.put("GATEWAY_PROXY_KEY", Caduceus.TEST_KEY);
        front = Caduceus.serve(Files.createDirectories(tmp.resolve("front")), frontEnv);
    }

    @AfterAll
    static void stop() throws Exception {
        summary.forEach(System.out::println);
        if (front != null) front.close();
        if (back != null) back.close();
        if (upstream != null) upstream.close();
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void aHangUpDuringAToolKillsItAndFreesTheSlot(Shape shape) throws Exception {
        measure("tool, direct", shape, () -> hangUpDuringTool(shape, back, Caduceus.TEST_KEY));
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void aHangUpWhileTheModelThinksFreesTheSlot(Shape shape) throws Exception {
        measure("model, direct", shape, () -> hangUpDuringModel(shape));
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void aHangUpAtARelayFrontKillsTheRemoteTool(Shape shape) throws Exception {
        measure("tool, relay front", shape, () -> hangUpDuringTool(shape, front, FRONT_KEY));
    }

    private interface Try {
        /** One hang-up; returns milliseconds from the close to everything freed. */
        double run() throws Exception;
    }

    private static void measure(String what, Shape shape, Try attempt) throws Exception {
        var times = new ArrayList<Double>();
        for (int i = 0; i < TRIES; i++) times.add(attempt.run());
        times.sort(null);
        double median = times.size() % 2 == 1 ? times.get(times.size() / 2)
                : (times.get(times.size() / 2 - 1) + times.get(times.size() / 2)) / 2;
        summary.add(String.format("hang-up → freed  %-18s %-16s median %7.1f ms  max %7.1f ms  (%d tries)",
                what, shape, median, times.getLast(), times.size()));
    }

    private static double hangUpDuringTool(Shape shape, Caduceus server, String key) throws Exception {
        var marker = "30." + ThreadLocalRandom.current().nextInt(100_000, 1_000_000);
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_sleep", "terminal",
                "{\"command\":\"sleep " + marker + "\"}")));
        String responseId;
        long closedAt;
        try (var client = Client.open(server, shape, key)) {
            responseId = shape == Shape.RESPONSES_STREAM ? client.awaitResponseId() : null;
            awaitUntil(() -> sleeping(marker), "the tool's sleep " + marker + " started");
            closedAt = System.nanoTime();
        } // hangs up while the tool runs
        awaitUntil(() -> !sleeping(marker) && idle(back, Caduceus.TEST_KEY) && idle(server, key),
                "no sleep " + marker + " left and no run active after the hang-up");
        double millis = (System.nanoTime() - closedAt) / 1e6;
        if (responseId != null) assertIncomplete(server, key, responseId);
        return millis;
    }

    private static double hangUpDuringModel(Shape shape) throws Exception {
        upstream.enqueue(Turn.text("too late").delayMillis(60_000));
        String responseId;
        long closedAt;
        try (var client = Client.open(back, shape, Caduceus.TEST_KEY)) {
            responseId = shape == Shape.RESPONSES_STREAM ? client.awaitResponseId() : null;
            awaitUntil(() -> upstream.pending() == 0, "the model call started");
            closedAt = System.nanoTime();
        }
        awaitUntil(() -> idle(back, Caduceus.TEST_KEY), "no run active after the hang-up");
        double millis = (System.nanoTime() - closedAt) / 1e6;
        if (responseId != null) assertIncomplete(back, Caduceus.TEST_KEY, responseId);
        return millis;
    }

    private static void assertIncomplete(Caduceus server, String key, String id) throws Exception {
        var stored = server.get("/v1/responses/" + id, Map.of("Authorization", "Bearer " + key));
        assertEquals(200, stored.statusCode(), stored.body());
        assertEquals("incomplete", JSON.readTree(stored.body()).path("status").asText(), stored.body());
    }

    /** A raw HTTP/1.1 client: closing it is the hang-up. */
    private static final class Client implements AutoCloseable {
        private static final Pattern RESPONSE_ID = Pattern.compile("\"id\":\"(resp_[A-Za-z0-9_-]+)\"");
        private final Socket socket;
        private final InputStream in;
        private final StringBuilder seen = new StringBuilder();

        private Client(Socket socket) throws IOException {
            this.socket = socket;
            this.in = socket.getInputStream();
        }

        static Client open(Caduceus server, Shape shape, String key) throws Exception {
            URI uri = server.awaitListening();
            var socket = new Socket(uri.getHost(), uri.getPort());
            socket.setSoTimeout(15_000);
            var body = shape.body.getBytes(UTF_8);
            socket.getOutputStream().write(("POST " + shape.path + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + key
                    + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length + "\r\n\r\n").getBytes(UTF_8));
            socket.getOutputStream().write(body);
            socket.getOutputStream().flush();
            return new Client(socket);
        }

        /** Reads the stream until the {@code response.created} event's id. */
        String awaitResponseId() throws IOException {
            var buffer = new byte[4096];
            while (true) {
                var m = RESPONSE_ID.matcher(seen);
                if (m.find()) return m.group(1);
                int n = in.read(buffer);
                if (n < 0) throw new AssertionError("the stream ended before response.created: " + seen);
                seen.append(new String(buffer, 0, n, UTF_8));
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    private static boolean idle(Caduceus server, String key) {
        try {
            var health = server.get("/health/detailed", Map.of("Authorization", "Bearer " + key));
            return health.statusCode() == 200 && JSON.readTree(health.body()).path("active_agents").asInt(-1) == 0;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** Whether a process runs {@code sleep <marker>} (in or out of a sandbox: its PIDs are ours too). */
    static boolean sleeping(String marker) {
        var needle = "sleep\0" + marker;
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            return procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
                    .anyMatch(p -> {
                        try {
                            return new String(Files.readAllBytes(p.resolve("cmdline")), UTF_8).contains(needle);
                        } catch (IOException e) {
                            return false; // exited meanwhile
                        }
                    });
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static void awaitUntil(Eventually.Condition condition, String what) throws Exception {
        Eventually.await(Duration.ofNanos(DEADLINE_NANOS), what, condition);
    }
}
