package dev.caduceus.plugin.terminal;

import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code exit_code_meaning}: well-known non-zero exit codes that are not
 * failures. The command judged is the first word of the last pipeline segment after
 * {@code VAR=value} prefixes. Stateless.
 */
final class ExitCodes {
    private static final Pattern ASSIGNMENT = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*=\\S*");
    private static final Map<String, Map<Integer, String>> MEANINGS = Map.of(
            "grep", Map.of(1, "No matches found (not an error)"),
            "rg", Map.of(1, "No matches found (not an error)"),
            "ag", Map.of(1, "No matches found (not an error)"),
            "ack", Map.of(1, "No matches found (not an error)"),
            "diff", Map.of(1, "Files differ"),
            "find", Map.of(1, "Some directories were inaccessible"),
            "test", Map.of(1, "Condition is false"),
            "[", Map.of(1, "Condition is false"),
            "curl", Map.of(6, "Could not resolve host", 7, "Failed to connect to host",
                    22, "HTTP error (the server returned an error status)", 28, "Operation timed out"));

    private ExitCodes() {}

    static Optional<String> meaning(String command, int exitCode) {
        if (exitCode == 0) return Optional.empty();
        var segments = command.strip().split("\\|");
        if (segments.length == 0) return Optional.empty();
        var words = segments[segments.length - 1].strip().split("\\s+");
        int i = 0;
        while (i < words.length && ASSIGNMENT.matcher(words[i]).matches()) i++;
        if (i >= words.length) return Optional.empty();
        var word = words[i];
        var name = word.substring(word.lastIndexOf('/') + 1);
        return Optional.ofNullable(MEANINGS.getOrDefault(name, Map.of()).get(exitCode));
    }
}
