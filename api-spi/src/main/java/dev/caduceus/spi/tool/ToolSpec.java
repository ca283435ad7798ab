package dev.caduceus.spi.tool;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Describes a tool to the model and to the host. Immutable (never mutate {@code parameters}).
 * {@link #builder} starts one with the defaults a simple tool wants.
 *
 * @param parameters     a JSON Schema object for the arguments
 * @param toolset        the toolset that owns the tool ({@code terminal})
 * @param requiresEnv    environment variables the tool needs to be available
 * @param maxResultChars results longer than this are truncated by the dispatcher
 * @param parallelSafe   whether calls may run concurrently with other calls of the same turn
 * @param concludesTurn  whether a call ends the agent turn
 * @param repeatable     whether a call may be made again when it is not known to have finished (its server
 *                       stopped meanwhile and the run is resumed): true for tools that only read, or whose second
 *                       call with the same arguments changes nothing more than the first
 */
public record ToolSpec(String name, String description, ObjectNode parameters, String toolset,
                       List<String> requiresEnv, ToolRisk risk, int maxResultChars,
                       boolean parallelSafe, boolean concludesTurn, String emoji, boolean repeatable) {
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

    /** A spec whose calls are not repeated when their outcome is unknown. */
    public ToolSpec(String name, String description, ObjectNode parameters, String toolset,
                    List<String> requiresEnv, ToolRisk risk, int maxResultChars,
                    boolean parallelSafe, boolean concludesTurn, String emoji) {
        this(name, description, parameters, toolset, requiresEnv, risk, maxResultChars, parallelSafe, concludesTurn,
                emoji, false);
    }

    /** This spec with {@link #repeatable} set. */
    public ToolSpec withRepeatable(boolean repeatable) {
        return new ToolSpec(name, description, parameters, toolset, requiresEnv, risk, maxResultChars, parallelSafe,
                concludesTurn, emoji, repeatable);
    }

    /** The result cap a {@link #builder} starts with. */
    public static final int DEFAULT_MAX_RESULT_CHARS = 100_000;

    /**
     * A spec for tool {@code name} with these defaults: no arguments ({@code {"type":"object",
     * "properties":{}}}), toolset {@code name} (no toolset need be declared: a tool no toolset lists
     * is offered with the default {@code agent.toolsets}, under its own toolset name), no required
     * environment, {@link ToolRisk#READ_ONLY}, results cut at {@value #DEFAULT_MAX_RESULT_CHARS}
     * characters, not parallel-safe, not ending the turn, the default emoji, not repeatable.
     */
    public static Builder builder(String name, String description) {
        return new Builder(name, description);
    }

    /** Builds a {@link ToolSpec}; each setter replaces one default. Not thread-safe. */
    public static final class Builder {
        private final String name;
        private final String description;
        private ObjectNode parameters;
        private String toolset;
        private List<String> requiresEnv = List.of();
        private ToolRisk risk = ToolRisk.READ_ONLY;
        private int maxResultChars = DEFAULT_MAX_RESULT_CHARS;
        private boolean parallelSafe;
        private boolean concludesTurn;
        private String emoji;
        private boolean repeatable;

        private Builder(String name, String description) {
            this.name = requireNonNull(name, "name");
            this.description = requireNonNull(description, "description");
        }

        /** The JSON Schema of the arguments (an {@code object} schema). */
        public Builder parameters(ObjectNode schema) {
            this.parameters = requireNonNull(schema, "schema");
            return this;
        }

        /** The toolset the tool belongs to (default: the tool's name). */
        public Builder toolset(String toolset) {
            this.toolset = requireNonNull(toolset, "toolset");
            return this;
        }

        /** Environment variables without which the tool is not offered. */
        public Builder requiresEnv(String... variables) {
            this.requiresEnv = List.of(variables);
            return this;
        }

        /** What the tool can do: say so when it writes files, runs programs or reaches the network. */
        public Builder risk(ToolRisk risk) {
            this.risk = requireNonNull(risk, "risk");
            return this;
        }

        public Builder maxResultChars(int chars) {
            this.maxResultChars = chars;
            return this;
        }

        /** Whether calls may run at the same time as the turn's other calls. */
        public Builder parallelSafe(boolean safe) {
            this.parallelSafe = safe;
            return this;
        }

        /** Whether a call ends the agent's turn. */
        public Builder concludesTurn(boolean concludes) {
            this.concludesTurn = concludes;
            return this;
        }

        /** The emoji shown with the tool's progress. */
        public Builder emoji(String emoji) {
            this.emoji = emoji;
            return this;
        }

        /**
         * Whether a call whose outcome is unknown (its server stopped while it ran) may be made again when the run
         * resumes; say so for tools that only read, or whose repeated call changes nothing more.
         */
        public Builder repeatable(boolean repeatable) {
            this.repeatable = repeatable;
            return this;
        }

        public ToolSpec build() {
            var schema = parameters;
            if (schema == null) {
                schema = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode().put("type", "object");
                schema.putObject("properties");
            }
            return new ToolSpec(name, description, schema, toolset == null ? name : toolset, requiresEnv, risk,
                    maxResultChars, parallelSafe, concludesTurn, emoji, repeatable);
        }
    }
}
