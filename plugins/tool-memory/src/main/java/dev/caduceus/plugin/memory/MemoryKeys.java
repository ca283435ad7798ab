package dev.caduceus.plugin.memory;

import dev.caduceus.spi.config.PluginConfig.Setting;
import java.util.List;

/**
 * The {@code tools.memory.*} keys the memory tool reads: their defaults and their declarations
 * ({@link MemoryPlugin#settings}), in one place so that {@link MemoryLimits} reads exactly what is
 * declared. Constants only.
 */
final class MemoryKeys {
    private MemoryKeys() {}

    static final int DEFAULT_MEMORY = 2200;
    static final int DEFAULT_USER = 1375;

    static final Setting MEMORY_CHAR_LIMIT = Setting.integer("tools.memory.memory_char_limit", DEFAULT_MEMORY, 1,
            "characters (code points) the agent's notes may hold in all");
    static final Setting USER_CHAR_LIMIT = Setting.integer("tools.memory.user_char_limit", DEFAULT_USER, 1,
            "characters (code points) the user profile may hold in all");

    /** Both, in the order of the reference. */
    static final List<Setting> ALL = List.of(MEMORY_CHAR_LIMIT, USER_CHAR_LIMIT);

    /** {@code setting}'s key inside the {@code tools} section, as {@code ctx.section("tools")} reads it. */
    static String inTools(Setting setting) {
        return setting.key().substring("tools.".length());
    }
}
