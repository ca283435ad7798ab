package dev.caduceus.spi.tool;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Describes a tool to the model and to the host. Immutable (never mutate {@code parameters}).
 *
 * @param parameters     a JSON Schema object for the arguments
 * @param toolset        the toolset that owns the tool ({@code terminal})
 * @param requiresEnv    environment variables the tool needs to be available
 * @param maxResultChars results longer than this are truncated by the dispatcher
 * @param parallelSafe   whether calls may run concurrently with other calls of the same turn
 * @param concludesTurn  whether a call ends the agent turn
 */
public record ToolSpec(String name, String description, ObjectNode parameters, String toolset,
                       List<String> requiresEnv, ToolRisk risk, int maxResultChars,
                       boolean parallelSafe, boolean concludesTurn, String emoji) {
    private static final Pattern NAME = Pattern.compile("[a-zA-Z0-9_-]{1,64}"); // OpenAI's rule

    public ToolSpec {
        requireNonNull(name, "name");
        if (!NAME.matcher(name).matches())
            throw new IllegalArgumentException("tool name must match " + NAME + ": " + name);
        requireNonNull(description, "description");
        requireNonNull(parameters, "parameters");
        requireNonNull(toolset, "toolset");
        requiresEnv = List.copyOf(requiresEnv);
        requireNonNull(risk, "risk");
        if (maxResultChars <= 0) throw new IllegalArgumentException("maxResultChars must be > 0");
    }
}
