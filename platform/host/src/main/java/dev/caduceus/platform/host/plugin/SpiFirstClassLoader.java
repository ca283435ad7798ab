package dev.caduceus.platform.host.plugin;

import java.io.IOException;
import java.net.URL;
import java.util.Enumeration;
import java.util.List;
import org.pf4j.PluginClassLoader;
import org.pf4j.PluginDescriptor;
import org.pf4j.PluginManager;

/**
 * A plugin's class loader: plugin-first like PF4J's default, except for the three shared prefixes,
 * which always come from the host. PF4J 3.14 has no delegation hook (3.15 added one, pf4j#633), so
 * this overrides {@link #loadClass(String)}.
 */
final class SpiFirstClassLoader extends PluginClassLoader {

    /**
     * Packages that must be the host's copy, whatever the jar bundles. This is the only place the
     * list is written; changing it is a design change.
     * <ul>
     *   <li>{@code dev.caduceus.spi.}: a bundled SPI makes {@code PlatformPlugin} a different class,
     *       and ServiceLoader fails with "ServiceConfigurationError: … not a subtype".</li>
     *   <li>{@code com.fasterxml.jackson.}: a second Jackson gives ClassCastException/LinkageError
     *       across loaders, and a bundled jackson-annotations makes {@code @JsonProperty} on plugin
     *       records silently ignored (annotation classes compare by identity).</li>
     *   <li>{@code org.slf4j.}: a second slf4j-api finds no binding, or a second binding.</li>
     * </ul>
     */
    static final List<String> SHARED_PREFIXES =
            List.of("dev.caduceus.spi.", "com.fasterxml.jackson.", "org.slf4j.");

    private static final List<String> SHARED_RESOURCE_PREFIXES =
            SHARED_PREFIXES.stream().map(p -> p.replace('.', '/')).toList();

    SpiFirstClassLoader(PluginManager manager, PluginDescriptor descriptor, ClassLoader parent) {
        super(manager, descriptor, parent);
    }

    static boolean isShared(String className) {
        for (var prefix : SHARED_PREFIXES) if (className.startsWith(prefix)) return true;
        return false;
    }

    private static boolean isSharedResource(String name) {
        for (var prefix : SHARED_RESOURCE_PREFIXES) if (name.startsWith(prefix)) return true;
        return false;
    }

    @Override
    public Class<?> loadClass(String className) throws ClassNotFoundException {
        if (isShared(className)) return getParent().loadClass(className);
        return super.loadClass(className);
    }

    @Override
    public URL getResource(String name) {
        if (isSharedResource(name)) return getParent().getResource(name);
        return super.getResource(name);
    }

    @Override
    public Enumeration<URL> getResources(String name) throws IOException {
        if (isSharedResource(name)) return getParent().getResources(name);
        return super.getResources(name);
    }
}
