package dev.caduceus.plugin.memory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The arguments of one {@code memory} call, checked against the tool's schema: either a
 * non-empty {@code operations} batch or a single {@link Operation}. {@link #parse} throws
 * {@link Invalid} with a message for the model when a value has the wrong type, the target is
 * missing or unknown, or no action is given.
 */
record MemoryArguments(MemoryTarget target, List<Operation> operations, boolean batch) {
    MemoryArguments {
        operations = List.copyOf(operations);
    }

    /** A call the schema does not allow; the message is shown to the model as {@code {"error": …}}. */
    static final class Invalid extends Exception {
        Invalid(String message) {
            super(message, null, false, false);
        }
    }

    static MemoryArguments parse(ObjectNode args) throws Invalid {
        var targetName = string(args, "target", "");
        if (targetName == null) throw new Invalid("Missing required argument 'target' ('memory' or 'user').");
        var target = MemoryTarget.of(targetName)
                .orElseThrow(() -> new Invalid("Invalid target '" + targetName + "'. Use 'memory' or 'user'."));
        var ops = args.get("operations");
        if (ops != null && !ops.isNull()) {
            if (!ops.isArray())
                throw new Invalid("Invalid argument 'operations': expected a list of {action, content?, old_text?} objects.");
            if (!ops.isEmpty()) return new MemoryArguments(target, batch(ops), true);
        }
        var action = string(args, "action", "");
        if (action == null) throw new Invalid("Missing 'action' (add, replace or remove) or 'operations'.");
        return new MemoryArguments(target, List.of(operation(args, action, "")), false);
    }

    private static List<Operation> batch(JsonNode ops) throws Invalid {
        var list = new ArrayList<Operation>();
        for (int i = 0; i < ops.size(); i++) {
            var where = "operations[" + i + "].";
            if (!(ops.get(i) instanceof ObjectNode op))
                throw new Invalid("Invalid argument 'operations[" + i + "]': expected an object {action, content?, old_text?}.");
            var action = string(op, "action", where);
            if (action == null) throw new Invalid("Missing required argument '" + where + "action'.");
            list.add(operation(op, action, where));
        }
        return list;
    }

    private static Operation operation(ObjectNode node, String action, String where) throws Invalid {
        Operation.Action parsed;
        try {
            parsed = Operation.Action.valueOf(action.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new Invalid("Unknown action '" + action + "' in '" + where + "action'. Use: add, replace, remove.");
        }
        if (!action.equals(parsed.wireName()))
            throw new Invalid("Unknown action '" + action + "' in '" + where + "action'. Use: add, replace, remove.");
        return new Operation(parsed, string(node, "content", where), string(node, "old_text", where));
    }

    /** The string at {@code name}; null when absent or JSON null; {@link Invalid} for any other type. */
    private static String string(ObjectNode node, String name, String where) throws Invalid {
        var value = node.get(name);
        if (value == null || value.isNull()) return null;
        if (!value.isTextual())
            throw new Invalid("Invalid argument '" + where + name + "': expected a string, got " + type(value) + ".");
        return value.asText();
    }

    private static String type(JsonNode value) {
        return switch (value.getNodeType()) {
            case ARRAY -> "an array";
            case OBJECT, POJO -> "an object";
            case BOOLEAN -> "a boolean";
            case NUMBER -> "a number";
            default -> value.getNodeType().name().toLowerCase(Locale.ROOT);
        };
    }
}
