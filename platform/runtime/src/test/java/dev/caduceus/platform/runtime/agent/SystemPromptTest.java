package dev.caduceus.platform.runtime.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.tool.ToolResult;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SystemPromptTest {
    @Test
    void coreTextComesFirstThenEnvironmentThenInstructions() {
        var text = SystemPrompt.builtIn().build(Set.of("read_file"), "/ws", Instant.parse("2025-03-01T10:15:00Z"),
                "Answer in French.");
        assertTrue(text.startsWith(SystemPrompt.CORE_IDENTITY));
        assertTrue(text.contains("prefer read_file"));
        assertFalse(text.contains("Memory:"));
        assertTrue(text.contains("Current date and time: 2025-03-01 10:15 UTC. Workspace: /ws."));
        assertTrue(text.endsWith("\n\nAnswer in French."));
    }

    @Test
    void identityFileTextReplacesTheCoreButNotTheInstructions() {
        var text = new SystemPrompt("You are Bob.").build(Set.of(), "/ws", Instant.EPOCH, null);
        assertTrue(text.startsWith("You are Bob.\n\nCurrent date"));
        assertFalse(text.contains(SystemPrompt.CORE_IDENTITY));
    }

    @Test
    void defaultToolsetOffersEveryToolWhileUnknownExplicitToolsetsOfferNone() {
        var a = Tools.tool("a", (c, x) -> new ToolResult.Ok(""));
        var catalog = Tools.catalog(a);
        assertEquals(List.of("a"), new ToolSelection(catalog, ToolSelection.DEFAULT).select(List.of()).stream()
                .map(t -> t.spec().name()).toList());
        assertTrue(new ToolSelection(catalog, ToolSelection.DEFAULT).select(List.of("web")).isEmpty());
        assertEquals(1, new ToolSelection(catalog, ToolSelection.DEFAULT).select(List.of("test")).size());
        assertTrue(new ToolSelection(catalog, List.of()).select(List.of()).isEmpty());
        var e = assertThrows(IllegalArgumentException.class,
                () -> new ToolSelection(catalog, List.of("webb")).checkConfigured());
        assertEquals("Unknown toolset 'webb' in agent.toolsets (known: test)", e.getMessage());
    }
}
