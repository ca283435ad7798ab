package dev.caduceus.platform.host.store;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One forward-only migration script, {@code V<version>__<description>.sql}.
 *
 * @param version     the number after {@code V}; scripts apply in numeric order
 * @param description the words after {@code __}, underscores shown as spaces
 * @param sql         the script text; may hold several statements
 * @param origin      where it came from, for messages ({@code /p/x.jar!db/migration/x/sqlite/V1__a.sql})
 */
public record Script(int version, String description, String sql, String origin) {
    private static final Pattern NAME = Pattern.compile("V([0-9]{1,9})__([A-Za-z0-9_.-]+)\\.sql");

    public Script {
        if (version < 1) throw new IllegalArgumentException("version must be >= 1: " + version);
        requireNonNull(description, "description");
        requireNonNull(sql, "sql");
        requireNonNull(origin, "origin");
    }

    /** Parses a file name such as {@code V2__add_index.sql}; empty when it does not match. */
    public static Optional<Script> fromFileName(String fileName, String sql, String origin) {
        Matcher m = NAME.matcher(fileName);
        if (!m.matches()) return Optional.empty();
        int version = Integer.parseInt(m.group(1));
        if (version < 1) return Optional.empty();
        return Optional.of(new Script(version, m.group(2).replace('_', ' '), sql, origin));
    }

    /** SHA-256 of the text as UTF-8, line endings normalized to {@code \n}, as lowercase hex. */
    public String checksum() {
        try {
            byte[] text = sql.replace("\r\n", "\n").getBytes(StandardCharsets.UTF_8);
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always available", e);
        }
    }

    @Override
    public String toString() {
        return "Script[V" + version + " " + description + " from " + origin + "]";
    }
}
