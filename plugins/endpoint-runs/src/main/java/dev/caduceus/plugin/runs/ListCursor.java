package dev.caduceus.plugin.runs;

import static java.util.Objects.requireNonNull;

import dev.caduceus.spi.agent.RunRecord;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;

/**
 * A position in the run list: the opaque {@code cursor} is base64 of
 * {@code "<created_at float seconds>:<run_id>"} of the last run of a page. Written URL-safe without
 * padding so it survives a query string unencoded; read in either alphabet, with or without padding
 * (and with a {@code +} that a query decoder turned into a space). Immutable.
 */
record ListCursor(Instant createdAt, String runId) {
    ListCursor {
        requireNonNull(createdAt, "createdAt");
        requireNonNull(runId, "runId");
    }

    /** The cursor after {@code run}. */
    static ListCursor after(RunRecord run) {
        return new ListCursor(run.createdAt(), run.runId());
    }

    String encode() {
        var plain = UnixSeconds.text(createdAt) + ":" + runId;
        return Base64.getUrlEncoder().withoutPadding().encodeToString(plain.getBytes(StandardCharsets.UTF_8));
    }

    /** Decodes a cursor; anything this class did not write is a 400 {@code invalid_cursor}. */
    static ListCursor decode(String cursor) {
        var normalized = cursor.trim().replace(' ', '-').replace('+', '-').replace('/', '_');
        while (normalized.endsWith("=")) normalized = normalized.substring(0, normalized.length() - 1);
        String plain;
        try {
            plain = new String(Base64.getUrlDecoder().decode(normalized), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw invalid(cursor);
        }
        int colon = plain.indexOf(':');
        if (colon < 0) throw invalid(cursor);
        var createdAt = UnixSeconds.parse(plain.substring(0, colon));
        var runId = plain.substring(colon + 1);
        if (createdAt == null || runId.isEmpty() || runId.length() > 256 || !runId.chars().allMatch(c -> c > 32 && c < 127))
            throw invalid(cursor);
        return new ListCursor(createdAt, runId);
    }

    private static RuntimeException invalid(String cursor) {
        return RunErrors.badRequest("invalid_cursor", "Invalid cursor: " + cursor, "cursor");
    }
}
