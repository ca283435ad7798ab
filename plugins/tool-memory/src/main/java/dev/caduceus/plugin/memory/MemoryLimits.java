package dev.caduceus.plugin.memory;

import dev.caduceus.spi.config.PluginConfig;

/**
 * Character limits of the two stores (notes 2,200, user profile 1,375 by default), counted in Unicode code points like Hermes.
 *
 * @param memory limit of the agent's notes
 * @param user   limit of the user profile
 */
record MemoryLimits(int memory, int user) {
    MemoryLimits {
        if (memory <= 0 || user <= 0)
            throw new IllegalArgumentException("memory limits must be > 0: " + memory + ", " + user);
    }

    /** Reads {@code memory.memory_char_limit} and {@code memory.user_char_limit} of the {@code tools.*} section. */
    static MemoryLimits from(PluginConfig tools) {
        return new MemoryLimits(tools.integer(MemoryKeys.inTools(MemoryKeys.MEMORY_CHAR_LIMIT), MemoryKeys.DEFAULT_MEMORY),
                tools.integer(MemoryKeys.inTools(MemoryKeys.USER_CHAR_LIMIT), MemoryKeys.DEFAULT_USER));
    }

    int of(MemoryTarget target) {
        return switch (target) {
            case MEMORY -> memory;
            case USER -> user;
        };
    }
}
