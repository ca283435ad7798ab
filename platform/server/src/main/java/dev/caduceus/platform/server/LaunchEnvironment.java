package dev.caduceus.platform.server;

import dev.caduceus.platform.host.boot.BootException;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The environment the platform reads: the process environment plus the secret variables that
 * {@code bin/caduceus} moved out of it. The launcher writes every secret variable ({@code API_SERVER_KEY},
 * {@code OPENAI_API_KEY}, any {@code *_KEY}, {@code *_TOKEN}, …) to a file only its owner can read,
 * as {@code NAME=VALUE} records each ended by a NUL byte (values may hold any other byte, newlines
 * included), passes the file's path as {@code -Dcaduceus.secrets.file}, unsets the variables and
 * execs the JVM; so {@code /proc/<pid>/environ} of the server, which any process of the same user
 * (a terminal command, say) can read, does not hold them. {@link #load} reads the file once at
 * start-up and deletes it. Stateless.
 */
final class LaunchEnvironment {
    /** The system property that names the secrets file. */
    static final String PROPERTY = "caduceus.secrets.file";

    private LaunchEnvironment() {}

    /**
     * {@code processEnv} merged with the secrets file's variables, or {@code processEnv} alone when no
     * file was passed. The file is deleted whether or not it could be parsed.
     *
     * @param secretsFile the property's value, or null
     * @throws BootException (exit status 2) when the file cannot be read or is malformed
     */
    static Map<String, String> load(Map<String, String> processEnv, String secretsFile) throws BootException {
        if (secretsFile == null || secretsFile.isEmpty()) return processEnv;
        var file = Path.of(secretsFile);
        byte[] content;
        try {
            content = Files.readAllBytes(file);
        } catch (IOException | RuntimeException e) {
            throw new BootException("Cannot read the secrets file " + file + " that bin/caduceus wrote for this start ("
                    + e + "), so API_SERVER_KEY, OPENAI_API_KEY and the other secret variables did not reach "
                    + "Caduceus. Check that $CADUCEUS_HOME/tmp is writable and not cleaned while Caduceus starts.",
                    2, e);
        } finally {
            deleteQuietly(file);
            deleteStale(file);
        }
        var merged = new HashMap<>(processEnv);
        merged.putAll(parse(content, file));
        return Map.copyOf(merged);
    }

    /** The {@code NAME=VALUE\0} records of {@code content}, decoded like the process environment. */
    static Map<String, String> parse(byte[] content, Path file) throws BootException {
        var text = new String(content, Charset.forName(System.getProperty("native.encoding", "UTF-8")));
        var variables = new HashMap<String, String>();
        int start = 0;
        int index = 0;
        while (start < text.length()) {
            index++;
            int end = text.indexOf('\0', start);
            if (end < 0)
                throw new BootException("The secrets file " + file + " is truncated (its last record has no NUL "
                        + "terminator)", 2, null);
            var record = text.substring(start, end);
            int eq = record.indexOf('=');
            if (eq <= 0)
                throw new BootException("The secrets file " + file + " is malformed (record " + index
                        + " has no NAME=)", 2, null);
            variables.put(record.substring(0, eq), record.substring(eq + 1));
            start = end + 1;
        }
        return variables;
    }

    /**
     * Deletes the secrets files ({@code secrets.<pid>}) next to {@code ours} whose process is gone: a
     * JVM that failed before {@code main} (a bad {@code JAVA_OPTS}, say) never deleted its own.
     */
    private static void deleteStale(Path ours) {
        var dir = ours.toAbsolutePath().getParent();
        if (dir == null) return;
        try (var files = Files.newDirectoryStream(dir, "secrets.*")) {
            for (var f : files) {
                var suffix = f.getFileName().toString().substring("secrets.".length());
                if (!suffix.matches("[0-9]{1,18}")) continue;
                if (ProcessHandle.of(Long.parseLong(suffix)).isEmpty()) deleteQuietly(f);
            }
        } catch (IOException | RuntimeException ignored) {
            // best effort: the files are the owner's only (mode 0600 in $CADUCEUS_HOME/tmp)
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException | RuntimeException ignored) {
            // mode 0600 in $CADUCEUS_HOME/tmp; deleteStale removes it at a later start
        }
    }
}
