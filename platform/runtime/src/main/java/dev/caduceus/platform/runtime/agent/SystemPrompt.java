package dev.caduceus.platform.runtime.agent;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;

/**
 * The system prompt of one turn, joined by blank lines: the core identity (built in,
 * or the text of {@code agent.identity_file}), one guidance paragraph per tool family present, the
 * environment line (UTC date and time, the workspace as the turn's tools see it; the terminal tool's own section
 * names its backend), then the caller's instructions as the ephemeral layer. The instructions never replace
 * the core. Immutable.
 *
 * @param identity the core identity text
 */
public record SystemPrompt(String identity) {
    /** The built-in core prompt. */
    public static final String CORE_IDENTITY = """
            You are Caduceus, a capable AI agent. You help the user by answering questions and by \
            carrying out tasks with the tools you are given. Be accurate and concise, say when you are \
            unsure, and never invent tool results. When a task needs tools, use them step by step and \
            check their results before you answer.""";
    private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")
            .withZone(ZoneOffset.UTC);

    public SystemPrompt {
        if (identity == null || identity.isBlank()) identity = CORE_IDENTITY;
        identity = identity.strip();
    }

    /** The built-in identity. */
    public static SystemPrompt builtIn() {
        return new SystemPrompt(CORE_IDENTITY);
    }

    /**
     * The prompt text for a turn offering {@code tools} whose calls see the workspace as {@code workspace},
     * at {@code now}, with optional {@code instructions}.
     */
    public String build(Collection<String> tools, String workspace, Instant now, String instructions) {
        return build(tools, java.util.List.of(), workspace, now, instructions);
    }

    /**
     * The prompt text, in this order: identity, tool guidance, the tools' own sections (the memory
     * snapshot), the environment line (naming {@code workspace}, the path the turn's tools use), then the
     * caller's instructions.
     */
    public String build(Collection<String> tools, java.util.List<String> toolSections, String workspace, Instant now,
                        String instructions) {
        // one builder sized for the usual prompt: this runs on every turn (bench/README.md, issue 48)
        var prompt = new StringBuilder(identity.length() + 1024).append(identity);
        for (var paragraph : guidance(tools)) prompt.append("\n\n").append(paragraph);
        for (var section : toolSections) if (section != null && !section.isBlank()) prompt.append("\n\n").append(section.strip());
        prompt.append("\n\nCurrent date and time: ");
        WHEN.formatTo(now, prompt);
        prompt.append(". Workspace: ").append(workspace).append('.');
        if (instructions != null && !instructions.isBlank()) prompt.append("\n\n").append(instructions.strip());
        return prompt.toString();
    }

    private static ArrayList<String> guidance(Collection<String> tools) {
        var out = new ArrayList<String>();
        if (tools.contains("read_file") || tools.contains("search_files") || tools.contains("patch")
                || tools.contains("write_file"))
            out.add("Files: prefer read_file, search_files, patch and write_file over shell equivalents such as "
                    + "cat, grep, sed or echo; they are safer and their output is easier to follow.");
        if (tools.contains("terminal"))
            out.add("Terminal: run commands inside the workspace; keep them non-interactive and check exit codes.");
        if (tools.contains("web_search") || tools.contains("web_extract"))
            out.add("Web: search first, then extract only the pages you need, and cite the URLs you used.");
        if (tools.contains("memory"))
            out.add("Memory: use the memory tool to keep durable facts about the user and their work; "
                    + "do not store transient details.");
        return out;
    }
}
