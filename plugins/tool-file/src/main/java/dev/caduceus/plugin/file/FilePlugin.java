package dev.caduceus.plugin.file;

import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.PlatformPlugin;
import dev.caduceus.spi.config.PluginConfig.Setting;
import dev.caduceus.spi.tool.Tool;
import java.util.List;

/**
 * Contributes the file family to toolset {@code file}: {@code read_file},
 * {@code write_file}, {@code patch} and {@code search_files}, all confined to the workspace by
 * {@link PathGuard}. The {@code file} toolset itself is declared by {@code toolsets-hermes}.
 *
 * <p>Lifecycle: {@link #start} creates the workspace (0700) when missing; the tools are built once
 * per {@link #tools} call and share one repeat guard and the protected files' identities
 * ({@link ProtectedFiles}, collected then and statted again on every call).
 */
public final class FilePlugin implements PlatformPlugin {

    /** What {@link FileSettings} reads. */
    @Override
    public List<Setting> settings() {
        return FileKeys.ALL;
    }

    @Override
    public void start(PlatformContext ctx) throws Exception {
        PathGuard.ensureWorkspace(ctx.global().workspace());
    }

    @Override
    public List<Tool> tools(PlatformContext ctx) {
        var family = new FileFamily(FileSettings.from(ctx), new RepeatGuard());
        return List.of(new ReadFileTool(family), new WriteFileTool(family), new PatchTool(family),
                new SearchFilesTool(family));
    }
}
