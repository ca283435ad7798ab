package dev.caduceus.plugin.memory;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolCall;
import dev.caduceus.spi.tool.ToolContext;
import dev.caduceus.spi.tool.ToolResult;
import dev.caduceus.spi.tool.ToolRisk;
import dev.caduceus.spi.tool.ToolSpec;
import java.util.List;

/**
 * The {@code memory} tool: checks the arguments, then applies {@link MemoryEdits} to the
 * call's scope inside one {@link MemoryStore} transaction. Schema errors come back as
 * {@link ToolResult.Error}; everything the spec shows as {@code {"success": false, …}} comes back as
 * that object in {@link ToolResult.Ok}. A call without a memory scope changes nothing. Stateless and
 * thread-safe; not parallel-safe within a turn, so a turn's writes apply in call order.
 */
final class MemoryTool implements Tool {
    static final String NAME = "memory";
    static final String NO_SCOPE = "Memory is not available in this context.";

    private static final String DESCRIPTION = """
            Save durable facts to persistent memory, shown to you at the start of every later turn. \
            Targets: 'user' = who the user is (name, role, preferences, communication style); \
            'memory' = your own notes (environment facts, project conventions, tool quirks, lessons learned). \
            Save proactively when the user states a preference or a correction, or when you learn a stable fact; \
            skip trivial, easily rediscovered or temporary information (task progress, TODO state).

            Actions: 'add' (content), 'replace' (old_text = a short unique substring of the entry, content = \
            its new text), 'remove' (old_text). To make several changes in one call, pass 'operations' \
            ([{action, content?, old_text?}, ...]): they apply together, all or nothing, and the character \
            limit is checked only on the final result, so one call can free room and add. When a store is full \
            an add is refused and the current entries are shown: remove or shorten stale entries and retry. \
            The system prompt keeps the notes from the start of the turn; results show the live state.""";

    private static final String SCHEMA = """
            {"type": "object", "required": ["target"], "properties": {
              "action": {"type": "string", "enum": ["add", "replace", "remove"]},
              "target": {"type": "string", "enum": ["memory", "user"]},
              "content": {"type": "string", "description": "entry text (add, replace)"},
              "old_text": {"type": "string", "description": "short unique substring of the entry to change (replace, remove)"},
              "operations": {"type": "array", "items": {"type": "object", "required": ["action"], "properties": {
                "action": {"type": "string", "enum": ["add", "replace", "remove"]},
                "content": {"type": "string"},
                "old_text": {"type": "string"}}}}}}
            """;

    private final MemoryStore store;
    private final MemoryLimits limits;
    private final HermesJson json;
    private final ToolSpec spec;

    MemoryTool(MemoryStore store, MemoryLimits limits, ObjectMapper mapper) {
        this.store = store;
        this.limits = limits;
        this.json = new HermesJson(mapper);
        this.spec = new ToolSpec(NAME, DESCRIPTION, schema(mapper), "memory", List.of(), ToolRisk.READ_ONLY,
                100_000, false, false, "🧠");
    }

    @Override
    public ToolSpec spec() { return spec; }

    /** The system-prompt snapshot for {@code memoryScope}, read once; null without a scope or entries. */
    @Override
    public String systemPromptSection(String memoryScope) {
        if (memoryScope == null) return null;
        var both = store.both(memoryScope);
        return MemorySnapshot.render(both.get(MemoryTarget.MEMORY), both.get(MemoryTarget.USER), limits);
    }

    @Override
    public ToolResult call(ToolCall call, ToolContext ctx) {
        var scope = ctx.memoryScope();
        if (scope == null) return new ToolResult.Ok(json.write(MemoryEdits.failureNode(NO_SCOPE)));
        MemoryArguments args;
        try {
            args = MemoryArguments.parse(call.arguments());
        } catch (MemoryArguments.Invalid e) {
            return new ToolResult.Error(e.getMessage(), false);
        }
        var edits = new MemoryEdits(args.target(), limits.of(args.target()));
        var outcome = store.edit(scope, args.target(), entries -> args.batch()
                ? edits.batch(entries, args.operations())
                : edits.apply(entries, args.operations().getFirst()));
        return new ToolResult.Ok(json.write(outcome.response()));
    }

    private static ObjectNode schema(ObjectMapper mapper) {
        try {
            return (ObjectNode) mapper.readTree(SCHEMA);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("memory tool schema is not valid JSON", e);
        }
    }
}
