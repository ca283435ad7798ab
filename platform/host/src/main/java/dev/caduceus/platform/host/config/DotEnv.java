package dev.caduceus.platform.host.config;

import dev.caduceus.spi.config.ConfigException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code $CADUCEUS_HOME/.env}, the seed's {@code ~/.hermes/.env}: environment variables kept in a
 * file, which the process environment overrides. One {@code KEY=VALUE} per line; an optional
 * {@code export } prefix; blank lines and lines starting with {@code #} are skipped; a value may be
 * in single quotes (taken literally), in double quotes ({@code \n}, {@code \t}, {@code \"},
 * {@code \\} and {@code \$} are escapes; it may span lines) or bare (trimmed, and a {@code #}
 * after a space starts a comment). Anything else is an error naming the file and the line.
 * Immutable.
 *
 * @param file     the file read, or empty when there is none
 * @param values   its variables, in file order (a later line wins)
 * @param warnings what to log at boot (a file others can read)
 */
public record DotEnv(Optional<Path> file, Map<String, String> values, List<String> warnings) {
    /** The file's name in the state directory. */
    public static final String NAME = ".env";
    private static final Pattern NAME_PATTERN = Pattern.compile("[A-Za-z_][A-Za-z0-9_.]*");

    public DotEnv {
        values = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(values));
        warnings = List.copyOf(warnings);
    }

    /** No file. */
    public static DotEnv none() {
        return new DotEnv(Optional.empty(), Map.of(), List.of());
    }

    /** {@code home/.env} if it exists, else {@link #none()}. */
    public static DotEnv read(Path home) {
        var file = home.resolve(NAME);
        if (!Files.isRegularFile(file)) return none();
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            throw new ConfigException("", "Cannot read " + file + ": " + e.getMessage());
        }
        var warnings = new ArrayList<String>();
        readableByOthers(file).ifPresent(who -> warnings.add(file + " is readable by " + who
                + " and may hold keys; make it private: chmod 600 " + file));
        return new DotEnv(Optional.of(file), parse(text, file.toString()), warnings);
    }

    /** {@code processEnv} over this file's variables: the process environment wins. */
    public Map<String, String> under(Map<String, String> processEnv) {
        if (values.isEmpty()) return processEnv;
        var merged = new HashMap<>(values);
        merged.putAll(processEnv);
        return Map.copyOf(merged);
    }

    /** The variables of {@code text}; {@code source} names the file in errors. */
    static Map<String, String> parse(String text, String source) {
        var values = new LinkedHashMap<String, String>();
        var lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            int number = i + 1;
            var line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            if (line.startsWith("export ") || line.startsWith("export\t")) line = line.substring(7).strip();
            int eq = line.indexOf('=');
            if (eq <= 0) throw malformed(source, number, "expected KEY=VALUE");
            var name = line.substring(0, eq).strip();
            if (!NAME_PATTERN.matcher(name).matches())
                throw malformed(source, number, "'" + name + "' is not a variable name");
            var rest = line.substring(eq + 1).stripLeading();
            String value;
            if (rest.startsWith("'")) {
                int end = rest.indexOf('\'', 1);
                if (end < 0) throw malformed(source, number, "the single quote is not closed");
                value = rest.substring(1, end);
                trailing(rest.substring(end + 1), source, number);
            } else if (rest.startsWith("\"")) {
                var sb = new StringBuilder();
                var current = rest;
                int pos = 1;
                while (true) {
                    if (pos >= current.length()) {
                        if (++i >= lines.length) throw malformed(source, number, "the double quote is not closed");
                        sb.append('\n');
                        current = lines[i];
                        pos = 0;
                        continue;
                    }
                    char c = current.charAt(pos);
                    if (c == '"') break;
                    if (c == '\\' && pos + 1 < current.length()) {
                        char next = current.charAt(++pos);
                        sb.append(switch (next) {
                            case 'n' -> '\n';
                            case 't' -> '\t';
                            case 'r' -> '\r';
                            case '"', '\\', '$', '\'' -> next;
                            default -> throw malformed(source, number, "unknown escape \\" + next);
                        });
                    } else {
                        sb.append(c);
                    }
                    pos++;
                }
                value = sb.toString();
                trailing(current.substring(pos + 1), source, number);
            } else {
                int comment = rest.indexOf(" #");
                int tab = rest.indexOf("\t#");
                if (tab >= 0 && (comment < 0 || tab < comment)) comment = tab;
                value = (comment >= 0 ? rest.substring(0, comment) : rest).strip();
                if (value.indexOf('"') >= 0 || value.indexOf('\'') >= 0)
                    throw malformed(source, number, "a quote inside an unquoted value; quote the whole value");
            }
            values.put(name, value);
        }
        return values;
    }

    private static void trailing(String after, String source, int number) {
        var rest = after.strip();
        if (!rest.isEmpty() && !rest.startsWith("#"))
            throw malformed(source, number, "text after the closing quote");
    }

    private static ConfigException malformed(String source, int line, String why) {
        return new ConfigException("", source + " line " + line + " is malformed: " + why
                + " (the line is not shown: it may hold a secret)");
    }

    private static Optional<String> readableByOthers(Path file) {
        try {
            var permissions = Files.getPosixFilePermissions(file);
            boolean group = permissions.contains(PosixFilePermission.GROUP_READ);
            boolean others = permissions.contains(PosixFilePermission.OTHERS_READ);
            if (group && others) return Optional.of("its group and everyone");
            if (others) return Optional.of("everyone");
            if (group) return Optional.of("its group");
            return Optional.empty();
        } catch (IOException | UnsupportedOperationException e) {
            return Optional.empty();
        }
    }

    @Override
    public String toString() {
        return "DotEnv[" + file.map(Path::toString).orElse("none") + ", " + values.keySet() + "]"; // values may be secrets
    }
}
