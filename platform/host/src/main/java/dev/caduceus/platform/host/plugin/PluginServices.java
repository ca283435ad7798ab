package dev.caduceus.platform.host.plugin;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The services plugins contribute for each other ({@code PlatformPlugin.services}), found by type
 * ({@code PlatformContext.service(ResponseHistory.class)}). Each service is registered under every
 * SPI interface it implements, because only those are shared between plugin class loaders; it is
 * handed out behind a proxy that calls it with its plugin's class loader as context class loader
 * (the caller is another plugin's request thread). One service per type: a second contributor fails
 * the boot, naming both plugins.
 *
 * <p>Immutable after {@link #of}; thread-safe.
 */
public final class PluginServices {
    private static final String SPI_PREFIX = "dev.caduceus.spi.";
    private final Map<Class<?>, Object> byType;

    private PluginServices(Map<Class<?>, Object> byType) {
        this.byType = Map.copyOf(byType);
    }

    /** No services (hosts without plugins, tests). */
    public static PluginServices none() {
        return new PluginServices(Map.of());
    }

    /** Registers each contribution under its SPI interfaces; throws {@link PluginBootException} on a collision or a service without one. */
    static PluginServices of(List<Contribution<Object>> contributions) {
        var byType = new LinkedHashMap<Class<?>, Object>();
        var owners = new HashMap<Class<?>, String>();
        for (var c : contributions) {
            var service = c.value();
            if (service == null) throw new PluginBootException("plugin '" + c.pluginId() + "' contributed a null service");
            var types = spiInterfaces(service.getClass());
            if (types.isEmpty())
                throw new PluginBootException("plugin '" + c.pluginId() + "' contributed a service of class "
                        + service.getClass().getName() + ", which implements no interface of the SPI ("
                        + SPI_PREFIX + "*): other plugins could not see its type");
            for (var type : types) {
                var other = owners.putIfAbsent(type, c.pluginId());
                if (other != null)
                    throw new PluginBootException("two services of type " + type.getSimpleName() + ": plugin '" + other
                            + "' and plugin '" + c.pluginId() + "'; at most one plugin may contribute it");
                byType.put(type, bind(type, service, c.classLoader()));
            }
        }
        return new PluginServices(byType);
    }

    /** The service of {@code type}, if a started plugin contributed one. */
    public <T> Optional<T> find(Class<T> type) {
        return Optional.ofNullable(byType.get(type)).map(type::cast);
    }

    /** Every registered type, for the deployment listing. */
    public Set<Class<?>> types() {
        return byType.keySet();
    }

    private static Set<Class<?>> spiInterfaces(Class<?> type) {
        var found = new LinkedHashSet<Class<?>>();
        var queue = new ArrayDeque<Class<?>>();
        for (var c = type; c != null; c = c.getSuperclass()) queue.addAll(List.of(c.getInterfaces()));
        while (!queue.isEmpty()) {
            var next = queue.poll();
            if (next.getName().startsWith(SPI_PREFIX)) found.add(next);
            queue.addAll(List.of(next.getInterfaces()));
        }
        return found;
    }

    private static Object bind(Class<?> type, Object service, ClassLoader loader) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getDeclaringClass() == Object.class) {
                return switch (method.getName()) {
                    case "equals" -> proxy == args[0];
                    case "hashCode" -> System.identityHashCode(proxy);
                    default -> "service " + type.getSimpleName() + " of " + service;
                };
            }
            try {
                return PluginCalls.with(loader, () -> method.invoke(service, args));
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler);
    }
}
