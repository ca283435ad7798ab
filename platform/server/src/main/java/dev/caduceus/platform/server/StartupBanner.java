package dev.caduceus.platform.server;

import dev.caduceus.platform.host.auth.ApiKey;
import dev.caduceus.platform.host.config.PlatformConfig;
import dev.caduceus.platform.host.plugin.PluginReport;
import dev.caduceus.platform.host.plugin.ToolNotes;
import dev.caduceus.spi.Deployment;
import java.io.PrintWriter;
import java.net.URI;
import java.util.List;

/**
 * The start-up summary a person reads: which plugins loaded (and which not, and why), the runtime
 * and model, how to authenticate, and last where Caduceus listens (scripts may wait for that line).
 * A generated key is printed once, with a ready-to-paste curl line; nothing keeps it in clear after that.
 */
final class StartupBanner {
    private StartupBanner() {}

    static void print(PrintWriter out, URI uri, String version, List<PluginReport> plugins, Deployment deployment,
                      PlatformConfig config, ApiKey key, ToolNotes notes) {
        var base = uri.toString().replaceAll("/+$", "");
        out.println("Caduceus " + version);
        var started = plugins.stream().filter(p -> p.state() == Deployment.State.STARTED).toList();
        out.println("  plugins:  " + started.size() + " started" + (started.isEmpty() ? "" : ":"));
        for (var plugin : started)
            out.println("            " + plugin.id() + " " + plugin.version() + " " + plugin.kinds());
        for (var plugin : plugins) {
            if (plugin.state() == Deployment.State.STARTED) continue;
            out.println("            " + plugin.id() + " " + plugin.state().name().toLowerCase() + ": " + plugin.reason());
        }
        out.println("  workspace: " + config.workspace());
        notes.byTool().forEach((tool, note) -> {
            if (!note.warning()) out.println("  " + pad(tool + ":") + note.text());
        });
        notes.warnings().forEach((tool, note) -> out.println("  WARNING:  " + tool + ": " + note.text()));
        out.println("  routes:   " + deployment.routes().size() + " (see " + base + "/v1/capabilities)");
        out.println("  runtime:  " + deployment.runtimeMode() + "; model: " + modelLine(config.model()));
        out.println("  state:    " + config.home() + (config.configFile().map(f -> "; config " + f).orElse("; no config file")));
        out.println("  database: " + database(config));
        switch (key) {
            case ApiKey.Generated generated -> {
                out.println("Caduceus generated an API key and saved its hash to " + generated.file());
                out.println("    API key: " + generated.value());
                out.println("(shown only now: note it, or run 'caduceus key rotate' later for a new one)");
                out.println("Try it:");
                out.println("    curl -H \"Authorization: Bearer " + generated.value() + "\" " + base + "/v1/models");
            }
            case ApiKey.Stored stored -> out.println("  auth:     Bearer key required; key hash in " + stored.file()
                    + " (new key: caduceus key rotate)");
            case ApiKey.Configured configured ->
                    out.println("  auth:     Bearer key required; key from " + configured.sourceName());
        }
        out.println("Caduceus is listening on " + base + " (Ctrl-C stops it)");
        out.flush();
    }

    /** The SQLite file, or PostgreSQL's URL without its password (the boot already parsed it). */
    private static String database(PlatformConfig config) {
        var storage = config.storage();
        if (storage.url().isEmpty()) return "sqlite " + config.home().resolve("caduceus.db");
        try {
            return "postgresql " + dev.caduceus.platform.host.store.PostgresTarget.parse(storage.url().get().reveal(),
                    storage.user(), storage.password().map(dev.caduceus.platform.host.config.Secret::reveal)).redacted();
        } catch (IllegalArgumentException e) {
            return "postgresql";
        }
    }

    private static String pad(String label) {
        return label.length() >= 10 ? label + " " : label + " ".repeat(10 - label.length());
    }

    private static String modelLine(PlatformConfig.Model model) {
        if (!model.configured())
            return "not configured (agent routes answer 503 until model.name and model.base_url or model.api_key are set)";
        return model.name().orElse("?") + " at " + model.baseUrl().orElse(PlatformConfig.OPENAI_BASE_URL);
    }
}
