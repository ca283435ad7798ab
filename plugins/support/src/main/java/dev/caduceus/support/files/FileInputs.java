package dev.caduceus.support.files;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.http.Caller;
import dev.caduceus.spi.http.HttpStatusException;
import dev.caduceus.spi.message.ContentPart;
import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.support.services.FileLibrary;
import dev.caduceus.support.wire.ContentNormalizer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A turn's attached files ({@link ContentNormalizer.FileParts}): each {@code file} / {@code input_file} part, by
 * {@code file_id} (an upload of the caller's, through {@link FileLibrary}) or by {@code file_data} (base64, or a
 * {@code data:} URL), is copied read-only into the workspace as {@code inputs/<name>} (the name sanitised; the
 * same bytes under the same name are reused, other bytes get {@code name (2).ext}, …) and becomes one line of text
 * telling the model what it has and where; a text file of at most {@link #INLINE_BYTES} is also given inline. An
 * {@code input_image} by {@code file_id} becomes the image itself (a {@code data:} URL). Confined to one request.
 */
public final class FileInputs implements ContentNormalizer.FileParts {
    /** The directory under the workspace where attached files go. */
    public static final String INPUTS = "inputs";
    /** A text file up to this many bytes is given to the model inline as well. */
    public static final int INLINE_BYTES = 8 * 1024;
    /** The largest image sent to the model inline by {@code file_id}. */
    public static final long MAX_IMAGE_BYTES = 20L * 1024 * 1024;
    /** The largest file fetched for a {@code file_url}. */
    public static final long MAX_URL_BYTES = 64L * 1024 * 1024;
    static final java.time.Duration URL_CONNECT_TIMEOUT = java.time.Duration.ofSeconds(10);
    static final java.time.Duration URL_TIMEOUT = java.time.Duration.ofSeconds(60);

    private final Path workspace;
    private final Optional<FileLibrary> library;
    private final Caller caller;
    private final Optional<OutboundHttp> outbound;

    /**
     * @param workspace the workspace on this host ({@code GlobalConfig.workspace()})
     * @param library   the uploaded files, when a plugin offers them
     * @param outbound  the host's client, for {@code file_url} (public addresses only); empty: refused
     */
    public FileInputs(Path workspace, Optional<FileLibrary> library, Caller caller, Optional<OutboundHttp> outbound) {
        this.workspace = workspace;
        this.library = library;
        this.caller = caller;
        this.outbound = outbound;
    }

    /** Without {@code file_url}. */
    public FileInputs(Path workspace, Optional<FileLibrary> library, Caller caller) {
        this(workspace, library, caller, Optional.empty());
    }

    @Override
    public List<ContentPart> resolve(JsonNode item, String param) {
        var type = item.path("type").asText("").strip().toLowerCase(Locale.ROOT);
        // chat: {"type":"file","file":{file_id | file_data, filename}}; Responses: the fields on the part itself
        var source = type.equals("file") && item.path("file").isObject() ? item.get("file") : item;
        if (type.equals("input_image")) return List.of(image(text(source, "file_id"), param));
        var fileId = text(source, "file_id");
        var fileData = text(source, "file_data");
        var fileUrl = text(source, "file_url");
        if ((fileId != null ? 1 : 0) + (fileData != null ? 1 : 0) + (fileUrl != null ? 1 : 0) != 1)
            throw bad("invalid_file", "A file part needs exactly one of file_id, file_data and file_url", param);
        try {
            if (fileUrl != null) return fetched(fileUrl, text(source, "filename"), param);
            return fileId != null ? placed(known(fileId, param), param) : placed(inline(fileData, text(source, "filename"), param), param);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot place an attached file in the workspace", e);
        }
    }

    /**
     * Places {@code content} (a file the caller trusts: the operator's, for the batch runner) as {@code filename} in
     * the workspace's {@code inputs/}, as a file part would be; the parts that tell the model.
     */
    public List<ContentPart> attach(String filename, InputStream content) throws IOException {
        return placed(FileNames.sanitise(filename).orElse("file"), content, null);
    }

    /** An image upload as an image part. */
    private ContentPart image(String fileId, String param) {
        var file = known(fileId, param);
        if (!file.contentType().startsWith("image/"))
            throw bad("invalid_image_file", "File " + fileId + " is not an image (" + file.contentType() + ")", param);
        if (file.bytes() > MAX_IMAGE_BYTES)
            throw bad("image_too_large", "File " + fileId + " is larger than " + MAX_IMAGE_BYTES + " bytes", param);
        try {
            var bytes = Files.readAllBytes(Path.of(file.path()));
            return new ContentPart.ImageUrl("data:" + file.contentType() + ";base64,"
                    + Base64.getEncoder().encodeToString(bytes), null);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read uploaded image " + fileId, e);
        }
    }

    private FileLibrary.LibraryFile known(String fileId, String param) {
        var lib = library.orElseThrow(() -> bad("unsupported_content_type",
                "This server keeps no uploaded files (the files endpoint is off): send file_data instead", param));
        return lib.find(caller.name(), caller.admin(), fileId)
                .orElseThrow(() -> bad("invalid_file", "No such File object: " + fileId, param));
    }

    /**
     * A {@code file_url}: fetched with the host's client under the egress policy (public addresses only, never a
     * cloud metadata address), redirects not followed, at most {@link #MAX_URL_BYTES}; any failure is a 400.
     */
    private List<ContentPart> fetched(String url, String filename, String param) throws IOException {
        var client = outbound.orElseThrow(() -> bad("unsupported_content_type", "file_url is not accepted here", param));
        java.net.URI uri;
        try {
            uri = java.net.URI.create(url.strip());
        } catch (IllegalArgumentException e) {
            throw bad("invalid_file_url", "file_url is not a URL", param);
        }
        var scheme = String.valueOf(uri.getScheme()).toLowerCase(Locale.ROOT);
        if (uri.getHost() == null || !(scheme.equals("https") || scheme.equals("http")))
            throw bad("invalid_file_url", "file_url must be an http or https URL", param);
        var request = OutboundHttp.Request.get(uri).withTimeouts(URL_CONNECT_TIMEOUT, URL_TIMEOUT, URL_TIMEOUT)
                .withEgress(OutboundHttp.Egress.publicOnly(List.of())).withFollowRedirects(false);
        try (var response = client.send(request)) {
            if (response.status() != 200)
                throw bad("file_url_unreachable", "file_url answered HTTP " + response.status(), param);
            var path = uri.getPath() == null ? "" : uri.getPath();
            var name = filename != null ? filename : path.substring(path.lastIndexOf('/') + 1);
            var safe = FileNames.sanitise(name).orElse("file");
            try (var body = response.body()) {
                return placed(safe, new Capped(body, MAX_URL_BYTES, param), param);
            }
        } catch (OutboundHttp.Failure e) {
            throw bad("file_url_unreachable", e.kind() == OutboundHttp.Failure.Kind.REFUSED
                    ? "file_url is refused: " + e.getMessage() : "file_url could not be fetched: " + e.getMessage(), param);
        }
    }

    /** An attached file's name and bytes (held, for {@code file_data}: it came in the request body). */
    private record Inline(String filename, byte[] bytes) {}

    private static Inline inline(String data, String filename, String param) {
        var text = data.strip();
        if (text.regionMatches(true, 0, "data:", 0, 5)) {
            int comma = text.indexOf(',');
            if (comma < 0 || !text.substring(0, comma).toLowerCase(Locale.ROOT).endsWith(";base64"))
                throw bad("invalid_file", "file_data must be base64, or a data: URL with ;base64", param);
            text = text.substring(comma + 1);
        }
        try {
            return new Inline(filename == null ? "file" : filename, Base64.getMimeDecoder().decode(text));
        } catch (IllegalArgumentException e) {
            throw bad("invalid_file", "file_data is not valid base64", param);
        }
    }

    private List<ContentPart> placed(FileLibrary.LibraryFile file, String param) throws IOException {
        var name = FileNames.sanitise(file.filename()).orElse(file.id());
        try (var in = Files.newInputStream(Path.of(file.path()), LinkOption.NOFOLLOW_LINKS)) {
            return placed(name, in, null); // an upload: looked into when it was uploaded
        }
    }

    private List<ContentPart> placed(Inline file, String param) throws IOException {
        return placed(FileNames.sanitise(file.filename()).orElse("file"), new java.io.ByteArrayInputStream(file.bytes()), param);
    }

    /** {@code in}, failing with a 400 once more than {@code limit} bytes have come. */
    private static final class Capped extends java.io.FilterInputStream {
        private final long limit;
        private final String param;
        private long read;

        Capped(InputStream in, long limit, String param) {
            super(in);
            this.limit = limit;
            this.param = param;
        }

        @Override
        public int read() throws IOException {
            var one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0 && (read += n) > limit)
                throw bad("file_too_large", "file_url's file is larger than " + limit + " bytes", param);
            return n;
        }
    }

    /**
     * Copies {@code in} to {@code inputs/<name>} (or a numbered name) and describes it to the model. The workspace
     * is the agent's: everything under it is opened relative to a directory handle, never following a link, so
     * that a link the agent left ({@code inputs -> $CADUCEUS_HOME}) can never lead a write outside it.
     */
    private List<ContentPart> placed(String name, InputStream in, String inspectAs) throws IOException {
        String relative;
        byte[] head;
        long bytes = 0;
        try (var dir = WorkspaceFiles.directory(workspace, INPUTS)) {
            var temp = Path.of(".incoming-" + java.util.UUID.randomUUID() + ".part");
            var digest = sha256();
            var first = new java.io.ByteArrayOutputStream();
            try {
                try (var out = java.nio.channels.Channels.newOutputStream(dir.newByteChannel(temp,
                        java.util.Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)))) {
                    var buffer = new byte[64 * 1024];
                    for (int n; (n = in.read(buffer)) > 0; ) {
                        digest.update(buffer, 0, n);
                        out.write(buffer, 0, n);
                        bytes += n;
                        if (first.size() <= INLINE_BYTES) first.write(buffer, 0, Math.min(n, INLINE_BYTES + 1 - first.size()));
                    }
                }
                head = first.toByteArray();
                if (inspectAs != null) inspect(dir, temp, head, bytes, inspectAs);
                relative = INPUTS + "/" + place(dir, name, temp, digest.digest());
            } finally { // a failed or refused copy (file_url past its limit) leaves nothing behind
                try {
                    dir.deleteFile(temp);
                } catch (java.nio.file.NoSuchFileException moved) {
                    // it became the input
                }
            }
        }
        var parts = new ArrayList<ContentPart>();
        var contentType = ContentSniffer.sniff(head, Math.min(head.length, ContentSniffer.HEAD), bytes <= ContentSniffer.HEAD);
        var kind = contentType.startsWith("text/") ? "text" : contentType;
        var line = new StringBuilder("[Attached file: ").append(relative).append(" in the workspace (").append(kind)
                .append(", ").append(bytes).append(bytes == 1 ? " byte" : " bytes").append(")");
        if (kind.equals("text") && head.length <= INLINE_BYTES)
            line.append(". Its content:]\n").append(new String(head, StandardCharsets.UTF_8));
        else line.append("]");
        parts.add(new ContentPart.Text(line.toString()));
        return parts;
    }

    /** Refuses an archive bomb ({@link Archives}) before it is placed: 400 {@code unsafe_archive}. */
    private static void inspect(SecureDirectoryStream<Path> dir, Path temp, byte[] head, long bytes, String param)
            throws IOException {
        var type = ContentSniffer.sniff(head, Math.min(head.length, ContentSniffer.HEAD), bytes <= ContentSniffer.HEAD);
        if (!Archives.inspected(type)) return;
        try (var in = java.nio.channels.Channels.newInputStream(dir.newByteChannel(temp,
                java.util.Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)))) {
            if (Archives.inspect(type, new java.io.BufferedInputStream(in, 64 * 1024)) instanceof Archives.Verdict.Unsafe unsafe)
                throw bad("unsafe_archive", "The attached archive was refused: " + unsafe.reason(), param);
        }
    }

    /**
     * Moves {@code temp} to {@code name}, or to the first of {@code name (2).ext}, … that is free; a regular file
     * there with the same bytes is reused (a client that sends the whole conversation attaches it every turn).
     */
    private static String place(SecureDirectoryStream<Path> dir, String name, Path temp, byte[] hash) throws IOException {
        int dot = name.lastIndexOf('.');
        var stem = dot > 0 ? name.substring(0, dot) : name;
        var extension = dot > 0 ? name.substring(dot) : "";
        for (int n = 1; n < 1000; n++) {
            var candidate = n == 1 ? name : FileNames.sanitise(stem + " (" + n + ")" + extension).orElse(name + n);
            var target = Path.of(candidate);
            java.nio.file.attribute.BasicFileAttributes existing;
            try {
                existing = dir.getFileAttributeView(target, java.nio.file.attribute.BasicFileAttributeView.class,
                        LinkOption.NOFOLLOW_LINKS).readAttributes();
            } catch (java.nio.file.NoSuchFileException free) {
                dir.move(temp, dir, target); // renameat: a link raced in is replaced, never followed
                try {
                    dir.getFileAttributeView(target, java.nio.file.attribute.PosixFileAttributeView.class,
                            LinkOption.NOFOLLOW_LINKS).setPermissions(PosixFilePermissions.fromString("r--r--r--"));
                } catch (IOException | UnsupportedOperationException e) {
                    // best effort: it is an input either way
                }
                return candidate;
            }
            if (existing.isRegularFile() && Arrays.equals(hash, hashOf(dir, target))) return candidate;
        }
        throw new IOException("no free name for " + name + " in the workspace's inputs");
    }

    private static byte[] hashOf(SecureDirectoryStream<Path> dir, Path file) throws IOException {
        var digest = sha256();
        try (var in = java.nio.channels.Channels.newInputStream(dir.newByteChannel(file,
                java.util.Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)))) {
            var buffer = new byte[64 * 1024];
            for (int n; (n = in.read(buffer)) > 0; ) digest.update(buffer, 0, n);
        }
        return digest.digest();
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String text(JsonNode node, String field) {
        var value = node.get(field);
        return value != null && value.isTextual() && !value.asText().isBlank() ? value.asText() : null;
    }

    private static HttpStatusException bad(String code, String message, String param) {
        return ApiError.badRequest(code, message, param).exception();
    }
}
