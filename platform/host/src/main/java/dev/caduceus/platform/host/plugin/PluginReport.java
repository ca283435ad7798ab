package dev.caduceus.platform.host.plugin;

import static java.util.Objects.requireNonNull;

import dev.caduceus.spi.Deployment;
import java.nio.file.Path;
import java.util.List;

/**
 * How one plugin jar ended up at boot. Immutable.
 *
 * @param id     the {@code Plugin-Id}, or the jar's file name when the manifest could not be read
 * @param kinds  what it contributed ({@code endpoints}, {@code tools}, {@code toolsets},
 *               {@code model_providers}, {@code agent_runtimes},
 *               {@code services}, {@code tool_sources}); only non-empty kinds
 * @param reason why it is disabled or failed; null when started
 */
public record PluginReport(String id, String version, Path jar, Deployment.State state, List<String> kinds,
                           String reason) {
    public PluginReport {
        requireNonNull(id, "id");
        requireNonNull(version, "version");
        requireNonNull(jar, "jar");
        requireNonNull(state, "state");
        kinds = List.copyOf(kinds);
        if ((state == Deployment.State.STARTED) != (reason == null))
            throw new IllegalArgumentException("a reason is given exactly when not started");
    }

    static PluginReport disabled(String id, String version, Path jar, String reason) {
        return new PluginReport(id, version, jar, Deployment.State.DISABLED, List.of(), reason);
    }

    static PluginReport failed(String id, String version, Path jar, String reason) {
        return new PluginReport(id, version, jar, Deployment.State.FAILED, List.of(), reason);
    }

    /** The view {@code /v1/capabilities} shows. */
    public Deployment.PluginStatus toStatus() {
        return new Deployment.PluginStatus(id, version, state, kinds, reason);
    }
}
