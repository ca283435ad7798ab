import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The assembled server under benchmark: {@code bin/caduceus serve} on a random port with a fresh
 * CADUCEUS_HOME, a fixed key and the given upstream, started and waited for. Shared by the bench
 * programs (the JDK 22+ source launcher compiles sibling files).
 */
record BenchServer(Process process, URI uri) {
    static final String KEY = "bench-key-0123456789abcdef";

    static BenchServer launch(Path dist, Path home, String upstream, Map<String, String> extraEnv) throws Exception {
        var builder = new ProcessBuilder(dist.resolve("bin/caduceus").toString(), "serve");
        var env = builder.environment();
        env.put("CADUCEUS_HOME", home.toString());
        env.put("API_SERVER_PORT", "0");
        env.put("API_SERVER_KEY", KEY);
        env.put("OPENAI_BASE_URL", upstream);
        env.put("CADUCEUS_MODEL", "bench-model");
        env.put("CADUCEUS__MODEL__HEALTH_PROBE", "false");
        env.put("CADUCEUS_LOG_LEVEL", "warn");
        env.put("CADUCEUS__SERVER__MAX_IDLE_CONNECTIONS_PER_CLIENT", "0"); // one machine plays every client
        env.putAll(extraEnv);
        builder.redirectError(ProcessBuilder.Redirect.INHERIT);
        var process = builder.start();
        var reader = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        var listening = Pattern.compile("listening on (http://\\S+)");
        String line;
        while ((line = reader.readLine()) != null) {
            var m = listening.matcher(line);
            if (m.find()) {
                Thread.ofVirtual().start(() -> reader.lines().forEach(l -> {}));
                return new BenchServer(process, URI.create(m.group(1)));
            }
        }
        throw new IllegalStateException("caduceus did not start");
    }
}
