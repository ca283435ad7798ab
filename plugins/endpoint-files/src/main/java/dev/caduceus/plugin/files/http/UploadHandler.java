package dev.caduceus.plugin.files.http;

import dev.caduceus.support.files.Archives;
import dev.caduceus.support.files.FileNames;
import dev.caduceus.plugin.files.BlobStore;
import dev.caduceus.plugin.files.FileIntake;
import dev.caduceus.plugin.files.FilesSettings;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.http.HttpExchange;
import dev.caduceus.spi.http.HttpHandler;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code POST /v1/files}: a {@code multipart/form-data} body with a {@code file} part and a {@code purpose}
 * ({@code user_data} or {@code assistants}), optionally {@code expires_after[anchor]=created_at} and
 * {@code expires_after[seconds]} (an hour to 30 days), as OpenAI takes it. The file is streamed to disk as it
 * arrives, capped at {@code files.max_bytes} and at what is left of the key's {@code files.quota_bytes}
 * (413 {@code file_too_large} / {@code storage_quota_exceeded}); then hashed into the content-addressed store and
 * answered with its File object. Thread-safe.
 */
final class UploadHandler implements HttpHandler {
    static final List<String> PURPOSES = List.of("user_data", "assistants");
    static final long MIN_EXPIRY_SECONDS = 3600;
    static final long MAX_EXPIRY_SECONDS = 30L * 24 * 3600;

    private final FileIntake intake;
    private final BlobStore blobs;
    UploadHandler(FileIntake intake, BlobStore blobs) {
        this.intake = intake;
        this.blobs = blobs;
    }

    @Override
    public void handle(HttpExchange exchange) throws Exception {
        var boundary = MultipartUpload.boundary(exchange.header("Content-Type").orElse(null));
        var owner = exchange.caller().name();
        var caller = exchange.caller();
        var room = intake.room(owner, caller.limit(FilesSettings.MAX_BYTES.key(), Long.MAX_VALUE),
                caller.limit(FilesSettings.QUOTA_BYTES.key(), Long.MAX_VALUE));
        if (room.limit() == 0) throw refused(intake.refusal(room));
        MultipartUpload.Parsed parsed;
        try (var body = exchange.bodyStream()) {
            parsed = MultipartUpload.read(body, boundary, blobs, room.limit());
        } catch (MultipartUpload.TooLarge e) {
            throw refused(intake.refusal(room));
        }
        var upload = parsed.file();
        try {
            if (upload == null) {
                if (parsed.fields().containsKey(MultipartUpload.FILE_FIELD))
                    throw MultipartUpload.bad("invalid_file", "The file part needs a filename (Content-Disposition: "
                            + "form-data; name=\"file\"; filename=\"…\")", "file");
                throw MultipartUpload.bad("missing_required_parameter", "Missing required parameter: 'file'.", "file");
            }
            var purpose = purpose(parsed.fields());
            var expiresAfter = expiry(parsed.fields());
            var filename = FileNames.sanitise(parsed.filename()).orElseThrow(() -> MultipartUpload.bad("invalid_filename",
                    "The file's name is empty once directories and control characters are removed", "file"));
            refuseArchiveBombs(upload);
            var outcome = intake.commit(upload, owner, filename, purpose, expiresAfter, Optional.empty(), room.quota());
            upload = null;
            if (!(outcome instanceof FileIntake.Outcome.Kept kept)) throw refused(outcome);
            exchange.respond(200, FileView.of(kept.file()));
        } finally {
            if (upload != null) upload.discard();
        }
    }

    /** An archive ({@link Archives}) whose names or sizes would harm whoever unpacks it: 400 {@code unsafe_archive}. */
    private static void refuseArchiveBombs(BlobStore.Incoming upload) throws java.io.IOException {
        var type = upload.contentType();
        if (!Archives.inspected(type)) return;
        try (var in = upload.reread()) {
            if (Archives.inspect(type, in) instanceof Archives.Verdict.Unsafe unsafe)
                throw MultipartUpload.bad("unsafe_archive", "The archive was refused: " + unsafe.reason(), "file");
        }
    }

    private static String purpose(Map<String, String> fields) {
        var purpose = fields.get("purpose");
        if (purpose == null || purpose.isBlank())
            throw MultipartUpload.bad("missing_required_parameter", "Missing required parameter: 'purpose'.", "purpose");
        purpose = purpose.strip();
        if (!PURPOSES.contains(purpose))
            throw MultipartUpload.bad("invalid_value", "Invalid purpose '" + purpose + "': this server takes "
                    + String.join(" or ", PURPOSES) + ".", "purpose");
        return purpose;
    }

    /** {@code expires_after[anchor]} and {@code expires_after[seconds]}: both or neither. */
    private static Optional<Duration> expiry(Map<String, String> fields) {
        var anchor = fields.get("expires_after[anchor]");
        var seconds = fields.get("expires_after[seconds]");
        if (anchor == null && seconds == null) return Optional.empty();
        if (anchor == null || !anchor.strip().equals("created_at"))
            throw MultipartUpload.bad("invalid_value", "expires_after[anchor] must be created_at", "expires_after.anchor");
        long value;
        try {
            value = Long.parseLong(seconds == null ? "" : seconds.strip());
        } catch (NumberFormatException e) {
            value = -1;
        }
        if (value < MIN_EXPIRY_SECONDS || value > MAX_EXPIRY_SECONDS)
            throw MultipartUpload.bad("invalid_value", "expires_after[seconds] must be a whole number from "
                    + MIN_EXPIRY_SECONDS + " (an hour) to " + MAX_EXPIRY_SECONDS + " (30 days)", "expires_after.seconds");
        return Optional.of(Duration.ofSeconds(value));
    }

    /** The 413 of a file refused for its size or the key's quota. */
    private static dev.caduceus.spi.http.HttpStatusException refused(FileIntake.Outcome outcome) {
        return switch (outcome) {
            case FileIntake.Outcome.OverQuota over -> new ApiError(413, "This key's files hold " + over.used() + " of their "
                    + over.quota() + " bytes (files.quota_bytes, or the key's --max-storage-bytes); delete some before uploading more", ApiError.INVALID_REQUEST,
                    "file", "storage_quota_exceeded").exception();
            case FileIntake.Outcome.TooLarge large -> new ApiError(413, "The file is larger than this key may upload "
                    + "(" + large.limit() + " bytes: files.max_bytes, or the key's --max-file-bytes)", ApiError.INVALID_REQUEST,
                    "file", "file_too_large").exception();
            case FileIntake.Outcome.Kept kept -> throw new IllegalArgumentException("kept, not refused: " + kept.file().id());
        };
    }
}
