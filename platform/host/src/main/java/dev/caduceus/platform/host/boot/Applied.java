package dev.caduceus.platform.host.boot;

import dev.caduceus.platform.host.store.Migrations;
import dev.caduceus.platform.host.store.Script;
import java.util.List;

/**
 * One owner's migrations at boot.
 *
 * @param owner   {@link Migrations#PLATFORM} or a plugin id
 * @param applied the scripts applied now, by version (empty: it was up to date)
 * @param version the newest version this build knows for it, which the database is at now
 */
public record Applied(String owner, List<Script> applied, int version) {
    public Applied {
        applied = List.copyOf(applied);
    }
}
