package dev.caduceus.spi.tool;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * A named group of tools, possibly including other toolsets. Pure data; immutable. A tool named
 * here that no plugin provides is logged at boot and resolved away.
 */
public record ToolsetSpec(String name, String description, List<String> tools, List<String> includes) {
    public ToolsetSpec {
        requireNonNull(name, "name");
        requireNonNull(description, "description");
        tools = List.copyOf(tools);
        includes = List.copyOf(includes);
    }
}
