package dev.caduceus.platform.host.plugin;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;
import org.pf4j.JarPluginLoader;
import org.pf4j.JarPluginManager;
import org.pf4j.PluginDescriptor;
import org.pf4j.PluginLoader;
import org.pf4j.PluginManager;
import org.pf4j.PluginStatusProvider;
import org.pf4j.RuntimeMode;

/**
 * PF4J configured for Caduceus: jar plugins only, always {@link RuntimeMode#DEPLOYMENT}, the
 * platform version as system version (so {@code Plugin-Requires} is checked), an
 * {@link SpiFirstClassLoader} per plugin, and enabled/disabled decided by {@link PluginSelection}
 * instead of PF4J's files, which are therefore never rewritten.
 *
 * <p>Threading: PF4J is not thread-safe (pf4j#30); use it from the boot thread only.
 */
final class CaduceusPluginManager extends JarPluginManager {

    private final Predicate<String> enabled;
    private final ClassLoader parent;

    /**
     * @param roots         absolute plugin folders
     * @param systemVersion the platform version, checked against {@code Plugin-Requires}
     * @param enabled       which plugin ids PF4J may load; the rest become DISABLED, and their code never runs
     */
    CaduceusPluginManager(List<Path> roots, String systemVersion, Predicate<String> enabled) {
        super(absolute(roots));
        this.enabled = requireNonNull(enabled, "enabled");
        this.parent = CaduceusPluginManager.class.getClassLoader();
        setSystemVersion(requireNonNull(systemVersion, "systemVersion"));
    }

    private static Path[] absolute(List<Path> roots) {
        for (var root : roots)
            if (!root.isAbsolute())
                throw new IllegalArgumentException("plugin root must be absolute: " + root);
        return roots.toArray(Path[]::new);
    }

    /** Never development mode: that expects {@code target/classes} layouts. */
    @Override
    public RuntimeMode getRuntimeMode() {
        return RuntimeMode.DEPLOYMENT;
    }

    /** Called by PF4J while loading, after construction. */
    @Override
    protected boolean isPluginDisabled(String pluginId) {
        return !enabled.test(pluginId);
    }

    @Override
    protected PluginStatusProvider createPluginStatusProvider() {
        // Called from PF4J's constructor, before our fields exist: answer through the manager later.
        return new ReadOnlyStatus(this);
    }

    @Override
    protected PluginLoader createPluginLoader() {
        return new SpiFirstJarPluginLoader(this);
    }

    @Override
    public boolean enablePlugin(String pluginId) {
        throw new UnsupportedOperationException("plugins are enabled by configuration, not at runtime");
    }

    @Override
    public boolean disablePlugin(String pluginId) {
        throw new UnsupportedOperationException("plugins are disabled by configuration, not at runtime");
    }

    /** Creates an {@link SpiFirstClassLoader} over the jar. */
    private static final class SpiFirstJarPluginLoader extends JarPluginLoader {
        SpiFirstJarPluginLoader(PluginManager manager) {
            super(manager);
        }

        @Override
        public ClassLoader loadPlugin(Path pluginPath, PluginDescriptor descriptor) {
            var manager = (CaduceusPluginManager) pluginManager;
            var loader = new SpiFirstClassLoader(manager, descriptor, manager.parent);
            loader.addFile(pluginPath.toFile());
            return loader;
        }
    }

    /** Answers from the selection; refuses PF4J's writes to enabled.txt and disabled.txt. */
    private record ReadOnlyStatus(CaduceusPluginManager manager) implements PluginStatusProvider {
        @Override
        public boolean isPluginDisabled(String pluginId) {
            return manager.isPluginDisabled(pluginId);
        }

        @Override
        public void disablePlugin(String pluginId) {
            throw new UnsupportedOperationException("disabled.txt is never rewritten");
        }

        @Override
        public void enablePlugin(String pluginId) {
            throw new UnsupportedOperationException("enabled.txt is never rewritten");
        }
    }
}
