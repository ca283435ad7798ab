package dev.caduceus.plugin.files.http;

import dev.caduceus.support.files.ContentSniffer;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.plugin.files.BlobStore;
import dev.caduceus.plugin.files.FileStore;
import dev.caduceus.plugin.files.SignedLinks;
import dev.caduceus.plugin.files.StoredFile;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.http.HttpExchange;
import dev.caduceus.spi.http.HttpStatusException;
import dev.caduceus.support.wire.QueryValues;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.time.Clock;
import java.util.Set;

/**
 * The routes of one stored file and the list, owner-scoped: another key's file, an expired one and an unknown id
 * are all 404 {@code file_not_found}; the admin key sees every key's files. Thread-safe.
 */
final class FileRoutes {
    static final int MAX_LIMIT = 10_000;
    /** Types sent as they are; anything else goes out as {@code application/octet-stream}. */
    static final Set<String> SHOWN_TYPES = Set.of("image/png", "image/jpeg", "image/gif", "image/webp",
            "application/pdf", ContentSniffer.TEXT);

    private final FileStore files;
    private final BlobStore blobs;
    private final SignedLinks links;
    private final Clock clock;

    FileRoutes(FileStore files, BlobStore blobs, SignedLinks links, Clock clock) {
        this.files = files;
        this.blobs = blobs;
        this.links = links;
        this.clock = clock;
    }

    /** {@code GET /v1/files?purpose=&limit=&after=&order=}. */
    void list(HttpExchange exchange) {
        var caller = exchange.caller();
        var purpose = exchange.query("purpose").filter(p -> !p.isBlank()).orElse(null);
        boolean ascending = !QueryValues.descending(exchange);
        int limit = QueryValues.limit(exchange, MAX_LIMIT, MAX_LIMIT);
        var owner = caller.admin() ? exchange.query("owner").filter(v -> !v.isEmpty()).orElse(null) : caller.name();
        var after = exchange.query("after").filter(a -> !a.isBlank()).orElse(null);
        if (after != null && visible(exchange, after) == null)
            throw ApiError.badRequest("invalid_after", "Invalid 'after': no file " + after, "after").exception();
        var rows = files.page(owner, purpose, clock.instant(), after, ascending, limit);
        boolean more = rows.size() > limit;
        var page = more ? rows.subList(0, limit) : rows;
        var body = JsonNodeFactory.instance.objectNode().put("object", "list");
        var data = body.putArray("data");
        page.forEach(f -> data.add(FileView.of(f)));
        if (page.isEmpty()) {
            body.putNull("first_id");
            body.putNull("last_id");
        } else {
            body.put("first_id", page.getFirst().id());
            body.put("last_id", page.getLast().id());
        }
        body.put("has_more", more);
        exchange.respond(200, body);
    }

    /** {@code GET /v1/files/{file_id}}. */
    void retrieve(HttpExchange exchange) {
        exchange.respond(200, FileView.of(owned(exchange)));
    }

    /** {@code GET /v1/files/{file_id}/content}: the bytes, streamed, as an attachment. */
    void content(HttpExchange exchange) throws Exception {
        send(exchange, owned(exchange));
    }

    /**
     * {@code GET /v1/files/{file_id}/download?expires=&signature=}, without the key: a signed link
     * ({@link SignedLinks}) that a browser follows from a chat answer. A bad or expired signature is 403
     * {@code invalid_link}, whatever the file; a deleted or expired file is 404.
     */
    void download(HttpExchange exchange) throws Exception {
        var id = exchange.pathParam("file_id");
        if (!links.valid(id, exchange.query("expires").orElse(""), exchange.query("signature").orElse(null)))
            throw new ApiError(403, "This download link is not valid or has expired; ask for the file again",
                    ApiError.INVALID_REQUEST, null, "invalid_link").exception();
        var file = files.find(id).filter(f -> !f.expired(clock.instant())).orElseThrow(() -> notFound(id));
        send(exchange, file);
    }

    private void send(HttpExchange exchange, StoredFile file) throws Exception {
        java.io.InputStream in;
        try {
            in = blobs.open(file.sha256());
        } catch (NoSuchFileException e) {
            throw new ApiError(500, "The content of " + file.id() + " is missing from the files directory",
                    ApiError.SERVER, null, "file_content_missing").exception();
        }
        exchange.header("Content-Disposition", "attachment; filename*=UTF-8''"
                + URLEncoder.encode(file.filename(), StandardCharsets.UTF_8).replace("+", "%20"));
        exchange.header("X-Content-Type-Options", "nosniff");
        exchange.header("Cache-Control", "private, no-store");
        var type = SHOWN_TYPES.contains(file.contentType()) ? file.contentType() : ContentSniffer.BINARY;
        exchange.respond(200, type, file.bytes(), in);
    }

    /** {@code DELETE /v1/files/{file_id}}: the row goes at once, the bytes with the sweep when no file names them. */
    void delete(HttpExchange exchange) {
        var file = owned(exchange);
        files.delete(file.id());
        exchange.respond(200, JsonNodeFactory.instance.objectNode().put("id", file.id()).put("object", "file")
                .put("deleted", true));
    }

    private StoredFile owned(HttpExchange exchange) {
        var id = exchange.pathParam("file_id");
        var file = visible(exchange, id);
        if (file == null) throw notFound(id);
        return file;
    }

    /** File {@code id} if the caller may see it and it has not expired; else null. */
    private StoredFile visible(HttpExchange exchange, String id) {
        return files.find(id).filter(f -> exchange.caller().owns(f.owner()) && !f.expired(clock.instant())).orElse(null);
    }

    private static HttpStatusException notFound(String id) {
        return ApiError.notFound("file_not_found", "No such File object: " + id).exception();
    }
}
