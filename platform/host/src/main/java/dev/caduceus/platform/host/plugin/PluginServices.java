package dev.caduceus.platform.host.plugin;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.host.json.Json;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Proxy;
import java.lang.reflect.Type;
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
 * ({@code PlatformContext.service(ResponseHistory.class)}). The types are not the SPI's: the plugin
 * that offers a service and the one that uses it each bundle their own copy of its interface
 * (usually from {@code caduceus-plugin-support}), so a service is registered under the <em>name</em>
 * of every interface it implements outside the JDK, and a caller's interface matches by name. When
 * the caller's copy is the provider's own class (one class loader, as in tests), the caller gets a
 * proxy that only sets the provider's context class loader; otherwise it gets a proxy of its own
 * copy that finds the provider's method by name and parameter count and carries arguments and
 * results across wherever the two classes differ: records component by component, lists element
 * by element, {@code Optional} inside out, anything else through JSON; values of shared classes
 * (JDK, SPI, Jackson) are handed over as they are.
 * Several plugins may offer a service of one type ({@link #all}, in start order); asking for
 * <em>the</em> service of a type ({@link #find}) that several offer fails, naming them.
 *
 * <p>Immutable after {@link #of}; thread-safe.
 */
public final class PluginServices {
    private static final ObjectMapper JSON = Json.newMapper();
    private final Map<String, List<Offered>> byName;
    /**
     * The proxies made so far for a caller's copy of an interface, by that copy and the service: a proxy is stateless,
     * and making one reflects over both interfaces, which a plugin asking once per request must not pay each time.
     */
    private final java.util.concurrent.ConcurrentHashMap<Class<?>, Map<Offered, Object>> proxies =
            new java.util.concurrent.ConcurrentHashMap<>();

    private record Offered(String pluginId, Class<?> type, Object service, ClassLoader loader) {}

    private PluginServices(Map<String, List<Offered>> byName) {
        this.byName = Map.copyOf(byName);
    }

    /** No services (hosts without plugins, tests). */
    public static PluginServices none() {
        return new PluginServices(Map.of());
    }

    /** Registers each contribution under its interfaces' names; throws {@link PluginBootException} for a service without one. */
    static PluginServices of(List<Contribution<Object>> contributions) {
        var byName = new LinkedHashMap<String, List<Offered>>();
        for (var c : contributions) {
            var service = c.value();
            if (service == null) throw new PluginBootException("plugin '" + c.pluginId() + "' contributed a null service");
            var types = interfaces(service.getClass());
            if (types.isEmpty())
                throw new PluginBootException("plugin '" + c.pluginId() + "' contributed a service of class "
                        + service.getClass().getName() + ", which implements no interface outside the JDK: other"
                        + " plugins could not name its type");
            for (var type : types)
                byName.computeIfAbsent(type.getName(), k -> new java.util.ArrayList<>()).add(
                        new Offered(c.pluginId(), type, service, c.classLoader()));
        }
        byName.replaceAll((k, v) -> List.copyOf(v));
        return new PluginServices(byName);
    }

    /** These services and {@code service}, which the host itself offers under {@code owner}. */
    public PluginServices with(String owner, Object service) {
        var more = new LinkedHashMap<String, List<Offered>>(byName);
        var loader = service.getClass().getClassLoader();
        for (var type : interfaces(service.getClass())) {
            var list = new java.util.ArrayList<>(more.getOrDefault(type.getName(), List.of()));
            list.add(new Offered(owner, type, service, loader));
            more.put(type.getName(), List.copyOf(list));
        }
        return new PluginServices(more);
    }

    /**
     * The service whose interface has {@code type}'s name, if a started plugin contributed one;
     * throws {@link IllegalStateException} when several did (use {@link #all}).
     */
    public <T> Optional<T> find(Class<T> type) {
        var offered = byName.getOrDefault(type.getName(), List.of());
        if (offered.size() > 1)
            throw new IllegalStateException("several plugins offer a service of type " + type.getName() + " ("
                    + String.join(", ", offered.stream().map(Offered::pluginId).toList()) + "): ask for all of them");
        return offered.stream().findFirst().map(o -> as(type, o));
    }

    /** Every started plugin's service whose interface has {@code type}'s name, in start order. */
    public <T> List<T> all(Class<T> type) {
        return byName.getOrDefault(type.getName(), List.of()).stream().map(o -> as(type, o)).toList();
    }

    private <T> T as(Class<T> type, Offered offered) {
        // by identity: an offered service is one object for the host's life, and its equals is the plugin's.
        // Made at the first request for it, not at boot: most are asked for once a plugin starts, some never.
        return type.cast(proxies.computeIfAbsent(type, t -> java.util.Collections.synchronizedMap(new java.util.IdentityHashMap<>()))
                .computeIfAbsent(offered, o -> o.type() == type ? sameClass(type, o.service(), o.loader())
                        : acrossLoaders(type, o)));
    }

    /** The name of every registered type, for the deployment listing. */
    public Set<String> types() {
        return byName.keySet();
    }

    private static Set<Class<?>> interfaces(Class<?> type) {
        var found = new LinkedHashSet<Class<?>>();
        var queue = new ArrayDeque<Class<?>>();
        for (var c = type; c != null; c = c.getSuperclass()) queue.addAll(List.of(c.getInterfaces()));
        while (!queue.isEmpty()) {
            var next = queue.poll();
            if (!next.getName().startsWith("java.") && !next.getName().startsWith("javax.")) found.add(next);
            queue.addAll(List.of(next.getInterfaces()));
        }
        return found;
    }

    private static Object sameClass(Class<?> type, Object service, ClassLoader loader) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getDeclaringClass() == Object.class) return objectMethod(type, service, proxy, method, args);
            return invoke(service, method, args, loader);
        };
        return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler);
    }

    /** A proxy of the caller's copy of the interface calling the provider's copy, converting what differs. */
    private static Object acrossLoaders(Class<?> wanted, Offered offered) {
        var methods = new HashMap<Method, Method>();
        for (var m : wanted.getMethods()) {
            if (m.isDefault() || java.lang.reflect.Modifier.isStatic(m.getModifiers())) continue;
            var target = java.util.Arrays.stream(offered.type().getMethods())
                    .filter(o -> o.getName().equals(m.getName()) && o.getParameterCount() == m.getParameterCount())
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("service " + wanted.getName() + " offered by another"
                            + " plugin has no method " + m.getName() + " with " + m.getParameterCount() + " parameters:"
                            + " the two plugins were built against different versions of it"));
            methods.put(m, target);
        }
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getDeclaringClass() == Object.class) return objectMethod(wanted, offered.service(), proxy, method, args);
            var target = methods.get(method);
            if (target == null) return InvocationHandler.invokeDefault(proxy, method, args);
            var converted = args == null ? null : new Object[args.length];
            for (int i = 0; args != null && i < args.length; i++)
                converted[i] = convert(args[i], target.getGenericParameterTypes()[i]);
            return convert(invoke(offered.service(), target, converted, offered.loader()), method.getGenericReturnType());
        };
        return Proxy.newProxyInstance(wanted.getClassLoader(), new Class<?>[] {wanted}, handler);
    }

    /** {@code value} as {@code type}: unchanged when it already is one, else through JSON. */
    static Object convert(Object value, Type type) {
        if (value == null) return null;
        var raw = raw(type);
        if (value instanceof Optional<?> optional && raw == Optional.class) {
            var inner = type instanceof ParameterizedType p ? p.getActualTypeArguments()[0] : Object.class;
            return optional.map(v -> convert(v, inner));
        }
        if (raw.isInstance(value) && sameLoaders(value, type)) return value;
        if (value instanceof Record && raw.isRecord()) return record(value, raw);
        if (value instanceof List<?> list && type instanceof ParameterizedType p && raw.isAssignableFrom(List.class)) {
            var element = p.getActualTypeArguments()[0];
            return list.stream().map(e -> convert(e, element)).toList();
        }
        JavaType target = JSON.getTypeFactory().constructType(type);
        return JSON.convertValue(value, target);
    }

    /** A record of the caller's class from the provider's record of the same shape, component by component. */
    private static Object record(Object value, Class<?> target) {
        var components = target.getRecordComponents();
        var values = new Object[components.length];
        var types = new Class<?>[components.length];
        try {
            for (int i = 0; i < components.length; i++) {
                var accessor = value.getClass().getMethod(components[i].getName());
                accessor.setAccessible(true);
                values[i] = convert(accessor.invoke(value), components[i].getGenericType());
                types[i] = components[i].getType();
            }
            var constructor = target.getDeclaredConstructor(types);
            constructor.setAccessible(true);
            return constructor.newInstance(values);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("cannot carry a " + value.getClass().getName() + " across to "
                    + target.getName() + " (the two plugins were built against different versions of it)", e);
        }
    }

    /** Whether a generic value (a list of records, say) can be handed over as is: its elements are the target's classes. */
    private static boolean sameLoaders(Object value, Type type) {
        if (!(type instanceof ParameterizedType p)) return true;
        var args = p.getActualTypeArguments();
        if (value instanceof java.util.Collection<?> c && args.length == 1)
            return c.stream().allMatch(e -> e == null || raw(args[0]).isInstance(e) && !(args[0] instanceof ParameterizedType));
        if (value instanceof Map<?, ?> m && args.length == 2)
            return m.values().stream().allMatch(e -> e == null || raw(args[1]).isInstance(e) && !(args[1] instanceof ParameterizedType));
        return true;
    }

    private static Class<?> raw(Type type) {
        if (type instanceof Class<?> c) return c.isPrimitive() ? java.lang.invoke.MethodType.methodType(c).wrap().returnType() : c;
        if (type instanceof ParameterizedType p) return (Class<?>) p.getRawType();
        return Object.class;
    }

    private static Object invoke(Object service, Method method, Object[] args, ClassLoader loader) throws Throwable {
        try {
            return PluginCalls.with(loader, () -> method.invoke(service, args));
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static Object objectMethod(Class<?> type, Object service, Object proxy, Method method, Object[] args) {
        return switch (method.getName()) {
            case "equals" -> proxy == args[0];
            case "hashCode" -> System.identityHashCode(proxy);
            default -> "service " + type.getSimpleName() + " of " + service;
        };
    }
}
