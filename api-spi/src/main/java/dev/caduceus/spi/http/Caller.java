package dev.caduceus.spi.http;

import static java.util.Objects.requireNonNull;

import java.util.Optional;
import java.util.Set;

/**
 * Who sent a request: the name of the API key it presented (never the key) and what that key may
 * do. The unnamed key ({@code API_SERVER_KEY}, {@code server.api_key} or the generated key file) is
 * the {@linkplain #ADMIN admin}: it sees every tenant's objects and may filter by owner. Each named
 * key ({@code caduceus key add NAME}) is a tenant: runs, stored responses, conversations, jobs,
 * sessions and memory it creates are owned by {@link #name()}, and other tenants get 404 for them.
 * Immutable.
 *
 * @param name      the key's name ({@value #ADMIN} for the admin key, {@value #ANONYMOUS_NAME} on public routes)
 * @param admin     whether this is the admin key
 * @param families  the endpoint families this key may use; empty means all
 * @param modelName the model id this key's clients see, when its policy sets one
 * @param limits    numeric settings this key's policy sets lower for itself, by setting name ({@code files.max_bytes}
 *                  from {@code caduceus key add … --max-file-bytes N}); the plugin that reads a setting applies the
 *                  smaller of the two
 * @param models    the model routes this key may use ({@code caduceus key add … --models fast,strong}); empty means all
 */
public record Caller(String name, boolean admin, Set<String> families, Optional<String> modelName,
                     java.util.Map<String, Long> limits, Set<String> models) {
    /** The admin key's name, and the owner of everything created before keys had names. */
    public static final String ADMIN = "admin";
    /** The caller on public routes ({@code /health}), which present no key. */
    public static final String ANONYMOUS_NAME = "anonymous";
    /** The admin key's caller. */
    public static final Caller ADMIN_CALLER = new Caller(ADMIN, true, Set.of(), Optional.empty());
    /** The caller of a public route. */
    public static final Caller ANONYMOUS = new Caller(ANONYMOUS_NAME, false, Set.of(), Optional.empty());

    public Caller {
        requireNonNull(name, "name");
        families = Set.copyOf(families);
        requireNonNull(modelName, "modelName");
        limits = java.util.Map.copyOf(limits);
        models = Set.copyOf(models);
    }

    /** A caller whose policy sets no model routes. */
    public Caller(String name, boolean admin, Set<String> families, Optional<String> modelName,
                  java.util.Map<String, Long> limits) {
        this(name, admin, families, modelName, limits, Set.of());
    }

    /** Whether this key may use model route {@code route}. */
    public boolean mayUseModel(String route) {
        return models.isEmpty() || models.contains(route);
    }

    /** A caller whose policy sets no limit. */
    public Caller(String name, boolean admin, Set<String> families, Optional<String> modelName) {
        this(name, admin, families, modelName, java.util.Map.of());
    }

    /** {@code setting} as this key may use it: its policy's own value when lower than the deployment's {@code value}. */
    public long limit(String setting, long value) {
        var own = limits.get(setting);
        return own == null ? value : Math.min(own, value);
    }

    /** A tenant: a named key with no restrictions. */
    public static Caller tenant(String name) {
        return new Caller(name, false, Set.of(), Optional.empty());
    }

    /** Whether this caller may see and change an object owned by {@code owner}. */
    public boolean owns(String owner) {
        return admin || name.equals(owner);
    }

    /** Whether this caller may use endpoint family {@code familyId}. */
    public boolean mayUse(String familyId) {
        return families.isEmpty() || families.contains(familyId);
    }
}
