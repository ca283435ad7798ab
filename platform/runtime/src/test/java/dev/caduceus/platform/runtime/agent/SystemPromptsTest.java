package dev.caduceus.platform.runtime.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SystemPromptsTest {
    private static final Instant NOW = Instant.parse("2026-12-05T10:15:30Z");
    private final SystemPrompt prompt = SystemPrompt.builtIn();
    private final SystemPrompts prompts = new SystemPrompts(prompt);

    @Test
    void theSameInputsGiveTheSameTextWithinTheMinute() {
        var first = prompts.build(Set.of("terminal", "read_file"), List.of("Memory: a"), "/ws", NOW, "be brief");
        assertEquals(prompt.build(Set.of("terminal", "read_file"), List.of("Memory: a"), "/ws", NOW, "be brief"), first);
        var tools = new LinkedHashSet<>(List.of("read_file", "terminal")); // another set, same names
        assertSame(first, prompts.build(tools, List.of("Memory: a"), "/ws", NOW.plusSeconds(29), "be brief"));
    }

    @Test
    void anyInputThatDiffersBuildsAnew() {
        var base = prompts.build(Set.of("terminal"), List.of("Memory: a"), "/ws", NOW, null);
        for (var other : List.of(
                prompts.build(Set.of("terminal"), List.of("Memory: a"), "/ws", NOW.plusSeconds(30), null), // 10:16
                prompts.build(Set.of("terminal", "memory"), List.of("Memory: a"), "/ws", NOW, null),
                prompts.build(Set.of("memory"), List.of("Memory: a"), "/ws", NOW, null),
                prompts.build(Set.of("terminal"), List.of("Memory: b"), "/ws", NOW, null),
                prompts.build(Set.of("terminal"), List.of("Memory: a"), "/other", NOW, null),
                prompts.build(Set.of("terminal"), List.of("Memory: a"), "/ws", NOW, "say hi"))) {
            assertNotSame(base, other);
            assertEquals(false, base.equals(other), other);
        }
        var again = prompts.build(Set.of("terminal"), List.of("Memory: a"), "/ws", NOW, null);
        assertEquals(base, again);
    }
}
