package dev.caduceus.spi.config;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.List;

/**
 * The documented global settings a plugin may read. Secrets (API keys) are not included.
 * Immutable.
 *
 * @param modelName          the advertised model id ({@code server.model_name}, default {@code hermes-agent})
 * @param stateDir           {@code $CADUCEUS_HOME}
 * @param workspace          {@code tools.workspace}
 * @param version            the Caduceus version
 * @param maxConcurrentRuns  {@code server.max_concurrent_runs} (0 = unlimited)
 * @param sseKeepaliveSeconds {@code server.sse_keepalive_seconds}
 * @param agentToolsets      {@code agent.toolsets}
 * @param maxIterations      {@code agent.max_iterations}
 * @param approvalsMode      {@code approvals.mode}: {@code manual} or {@code off}
 * @param chatToolProgressEvents {@code chat.tool_progress_events}: {@code opt_in}, {@code always} or {@code off}
 * @param idempotencyTtlSeconds  {@code idempotency.ttl_seconds} (chat and Responses, non-streaming)
 * @param idempotencyMaxEntries  {@code idempotency.max_entries}
 * @param directModelRequests    {@code model.direct_model_requests}: pass unknown request model names upstream
 * @param protectedPaths         what no tool may show the agent: {@code $CADUCEUS_HOME} (with its key
 *                               file, database and {@code .env}) and the configuration file, wherever it is
 */
public record GlobalConfig(String modelName, Path stateDir, Path workspace, String version,
                           int maxConcurrentRuns, int sseKeepaliveSeconds, List<String> agentToolsets,
                           int maxIterations, String approvalsMode, String chatToolProgressEvents,
                           int idempotencyTtlSeconds, int idempotencyMaxEntries, boolean directModelRequests,
                           List<Path> protectedPaths) {
    /** Globals whose only protected path is {@code stateDir} (tests, hosts without a config file). */
    public GlobalConfig(String modelName, Path stateDir, Path workspace, String version, int maxConcurrentRuns,
                        int sseKeepaliveSeconds, List<String> agentToolsets, int maxIterations, String approvalsMode,
                        String chatToolProgressEvents, int idempotencyTtlSeconds, int idempotencyMaxEntries,
                        boolean directModelRequests) {
        this(modelName, stateDir, workspace, version, maxConcurrentRuns, sseKeepaliveSeconds, agentToolsets,
                maxIterations, approvalsMode, chatToolProgressEvents, idempotencyTtlSeconds, idempotencyMaxEntries,
                directModelRequests, List.of(stateDir));
    }

    public GlobalConfig {
        requireNonNull(modelName, "modelName");
        requireNonNull(stateDir, "stateDir");
        requireNonNull(workspace, "workspace");
        requireNonNull(version, "version");
        agentToolsets = List.copyOf(agentToolsets);
        requireNonNull(approvalsMode, "approvalsMode");
        requireNonNull(chatToolProgressEvents, "chatToolProgressEvents");
        protectedPaths = List.copyOf(protectedPaths);
    }
}
