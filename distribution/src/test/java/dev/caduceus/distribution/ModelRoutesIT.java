package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Model routes from the command line, on the assembled distribution with scripted upstreams: {@code caduceus models
 * test} calls each deployment of a route once and says which failed; {@code caduceus batch --model ROUTE} runs its
 * prompts on that route's deployment with the deployment's model id.
 */
class ModelRoutesIT {
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path home;
    @TempDir Path work;
    ScriptedUpstream primary;
    ScriptedUpstream fast;
    ScriptedUpstream locked;

    @BeforeEach
    void start() throws Exception {
        primary = ScriptedUpstream.start();
        primary.setDefault(Turn.text("from the primary"));
        fast = ScriptedUpstream.start();
        fast.setDefault(Turn.reasoning("Say it.").withText("OK").usage(20, 1)); // the batch keeps turns with reasoning
        locked = ScriptedUpstream.start();
        locked.setDefault(Turn.error(401, "Incorrect API key provided"));
        Files.writeString(home.resolve("config.yaml"), """
                model:
                  base_url: "%s"
                  name: main-model
                  health_probe: false
                  routes:
                    fast:
                      deployments:
                        - {base_url: "%s", model: small-model, price: {input: 1, output: 2}}
                        - {base_url: "%s", model: locked-model}
                    good: {base_url: "%s", model: small-model}
                """.formatted(primary.baseUrl(), fast.baseUrl(), locked.baseUrl(), fast.baseUrl()));
    }

    @AfterEach
    void stop() {
        for (var upstream : List.of(primary, fast, locked)) if (upstream != null) upstream.close();
    }

    @Test
    void modelsTestCallsEachDeploymentAndNamesTheOneThatFailed() throws Exception {
        try (var test = Caduceus.launch(home, Map.of(), "models", "test", "fast")) {
            assertEquals(1, test.awaitExit(), test.stdout() + test.stderr());
            var out = test.stdout();
            assertTrue(out.lines().anyMatch(l -> l.startsWith("fast/0") && l.contains("small-model") && l.contains(" ok ")
                    && l.contains("\"OK\"") && l.contains("20+1 tokens, 0.000022 USD")), out);
            assertTrue(out.lines().anyMatch(l -> l.startsWith("fast/1") && l.contains("failed")
                    && l.contains("401") && l.contains("Incorrect API key")), out);
        }
        assertEquals("small-model", fast.chatRequests().getFirst().body().path("model").asText());
        assertEquals("locked-model", locked.chatRequests().getFirst().body().path("model").asText());
        try (var unknown = Caduceus.launch(home, Map.of(), "models", "test", "nope")) {
            assertEquals(2, unknown.awaitExit(), unknown.stdout() + unknown.stderr());
            assertTrue(unknown.stdout().contains("No model route 'nope' (routes: fast, good)"), unknown.stdout() + unknown.stderr());
        }
    }

    @Test
    void batchWithARoutesNameRunsOnThatRoute() throws Exception {
        var dataset = work.resolve("prompts.jsonl");
        Files.writeString(dataset, "{\"prompt\": \"one\"}\n{\"prompt\": \"two\"}\n");
        try (var batch = Caduceus.launch(home, Map.of(), "batch", "--dataset_file=" + dataset, "--batch_size", "1",
                "--run-name=routed", "--output_dir=" + work.resolve("routed"), "--distribution=terminal_only",
                "--model", "good", "--num_workers=1")) {
            assertEquals(0, batch.awaitExit(), batch.stdout() + batch.stderr());
        }
        assertEquals(2, fast.chatRequests().size(), "every prompt went to the route's deployment; the primary had "
                + primary.chatRequests().size() + " " + primary.chatRequests().stream().map(r -> r.body().path("model").asText()).toList());
        fast.chatRequests().forEach(r -> assertEquals("small-model", r.body().path("model").asText()));
        assertEquals(0, primary.chatRequests().size());
        var trajectories = Files.readAllLines(work.resolve("routed/trajectories.jsonl"));
        assertEquals(2, trajectories.size());
        assertTrue(JSON.readTree(trajectories.getFirst()).path("conversations").get(2).path("value").asText().contains("OK"), trajectories.getFirst());
    }
}
