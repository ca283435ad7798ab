package dev.caduceus.platform.runtime.agent;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A runtime's {@link SystemPrompt}, built once and given back while its inputs stay the same: a
 * deployment's turns mostly offer the same tools, tool sections, workspace and instructions, and the
 * prompt names the time to the minute, so building it anew on every turn made the same ~1 KB string
 * (and its builder's garbage) thousands of times a second under load (bench/README.md, issue 48).
 * Keeps the last prompt only: turns that differ simply build theirs. Thread-safe.
 */
final class SystemPrompts {
    private record Built(Set<String> tools, List<String> sections, String workspace, long minute, String instructions,
                         String text) {}

    private final SystemPrompt prompt;
    private volatile Built last;

    SystemPrompts(SystemPrompt prompt) {
        this.prompt = Objects.requireNonNull(prompt, "prompt");
    }

    /** {@link SystemPrompt#build(Collection, List, String, Instant, String)}, the last one's text when its inputs match. */
    String build(Collection<String> tools, List<String> sections, String workspace, Instant now, String instructions) {
        long minute = Math.floorDiv(now.getEpochSecond(), 60);
        var built = last;
        if (built != null && built.minute == minute && built.workspace.equals(workspace)
                && Objects.equals(built.instructions, instructions) && built.sections.equals(sections)
                && built.tools.size() == tools.size() && built.tools.containsAll(tools))
            return built.text;
        var text = prompt.build(tools, sections, workspace, now, instructions);
        last = new Built(Collections.unmodifiableSet(new LinkedHashSet<>(tools)),
                Collections.unmodifiableList(new ArrayList<>(sections)), workspace, minute, instructions, text);
        return text;
    }
}
