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
 */
public record Caller(String name, boolean admin, Set<String> families, Optional<String> modelName) {
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
