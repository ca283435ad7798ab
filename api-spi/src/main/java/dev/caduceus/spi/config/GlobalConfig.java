package dev.caduceus.spi.config;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.List;

/**
 * The host's own settings a plugin may read. Secrets (API keys) are not included; a plugin's own
 * settings are not here either: it reads them from its section ({@code PlatformContext.section}) or
 * its subtree ({@code PlatformContext.config}). Immutable.
 *
 * @param modelName          the advertised model id ({@code server.model_name}, default {@code hermes-agent})
 * @param stateDir           {@code $CADUCEUS_HOME}
 * @param workspace          {@code tools.workspace}
 * @param version            the Caduceus version
 * @param maxConcurrentRuns  {@code server.max_concurrent_runs} (0 = unlimited)
 * @param sseKeepaliveSeconds {@code server.sse_keepalive_seconds}: a comment after this long without a frame
 * @param agentToolsets      {@code agent.toolsets}
 * @param maxIterations      {@code agent.max_iterations}
 * @param directModelRequests {@code model.direct_model_requests}: pass unknown request model names upstream
 * @param protectedPaths     what no tool may show the agent: {@code $CADUCEUS_HOME} (with its key
 *                           file, database and {@code .env}) and the configuration file, wherever it is
 */
public record GlobalConfig(String modelName, Path stateDir, Path workspace, String version,
                           int maxConcurrentRuns, int sseKeepaliveSeconds, List<String> agentToolsets,
                           int maxIterations, boolean directModelRequests,
                           List<Path> protectedPaths) {
    public GlobalConfig {
        requireNonNull(modelName, "modelName");
        requireNonNull(stateDir, "stateDir");
        requireNonNull(workspace, "workspace");
        requireNonNull(version, "version");
        agentToolsets = List.copyOf(agentToolsets);
        protectedPaths = List.copyOf(protectedPaths);
    }
}
