package dev.caduceus.plugin.files.http;

import dev.caduceus.plugin.files.BlobStore;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.http.HttpStatusException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.commons.fileupload2.core.MultipartInput;
import org.apache.commons.fileupload2.core.ParameterParser;

/**
 * One {@code multipart/form-data} body read part by part as it arrives (Apache Commons FileUpload's
 * {@link MultipartInput}): the {@code file} part streamed into the {@link BlobStore}, never whole in memory and
 * stopped at its limit; the other fields kept as short strings. Limits hold while reading: at most
 * {@link #MAX_PARTS} parts, {@link #MAX_HEADER_BYTES} of headers per part, {@link #MAX_FIELD_BYTES} per field,
 * one file. Confined to the request's thread.
 */
final class MultipartUpload {
    static final int MAX_PARTS = 16;
    static final int MAX_HEADER_BYTES = 8 * 1024;
    static final int MAX_FIELD_BYTES = 4 * 1024;
    static final String FILE_FIELD = "file";

    /** What the body held. {@code file} is null when no {@code file} part came. */
    record Parsed(Map<String, String> fields, BlobStore.Incoming file, String filename) {}

    /** Why the file stopped: it passed {@code limit} bytes. */
    static final class TooLarge extends RuntimeException {
        final long limit;

        TooLarge(long limit) {
            super(null, null, false, false);
            this.limit = limit;
        }
    }

    private MultipartUpload() {}

    /** The boundary of a {@code multipart/form-data} content type; a 400 for any other type. */
    static byte[] boundary(String contentType) {
        var params = parser().parse(contentType == null ? "" : contentType, ';');
        var type = contentType == null ? "" : contentType.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
        var boundary = params.get("boundary");
        if (!type.equals("multipart/form-data") || boundary == null || boundary.isEmpty() || boundary.length() > 70)
            throw new ApiError(400, "POST /v1/files takes a multipart/form-data body (a file part and a purpose field), "
                    + "not " + (type.isEmpty() ? "a body without a Content-Type" : type), ApiError.INVALID_REQUEST, null,
                    "invalid_content_type").exception();
        return boundary.getBytes(StandardCharsets.ISO_8859_1);
    }

    /**
     * Reads {@code body}; the file part goes to {@code store.begin()}, at most {@code fileLimit} bytes (past it:
     * {@link TooLarge}). On any failure the upload begun is discarded.
     */
    static Parsed read(InputStream body, byte[] boundary, BlobStore store, long fileLimit) throws IOException {
        var fields = new LinkedHashMap<String, String>();
        BlobStore.Incoming file = null;
        String filename = null;
        try {
            var input = MultipartInput.builder().setInputStream(body).setBoundary(boundary)
                    .setPartHeaderSizeMax(MAX_HEADER_BYTES).setBufferSize(64 * 1024).get();
            input.setHeaderCharset(StandardCharsets.UTF_8);
            boolean more = input.skipPreamble();
            if (!more) throw bad("invalid_multipart", "The body holds no part: no --boundary line was found", null);
            int parts = 0;
            while (more) {
                if (++parts > MAX_PARTS) throw bad("too_many_parts", "A files upload has at most " + MAX_PARTS + " parts", null);
                var disposition = disposition(input.readHeaders());
                var name = disposition.get("name");
                if (name == null) throw bad("invalid_multipart", "A part has no Content-Disposition name", null);
                if (FILE_FIELD.equals(name) && disposition.containsKey("filename")) {
                    if (file != null) throw bad("too_many_files", "Send one file per upload", FILE_FIELD);
                    filename = disposition.get("filename");
                    file = store.begin();
                    input.readBodyData(new Capped(file, fileLimit));
                } else {
                    var value = new ByteArrayOutputStream();
                    try {
                        input.readBodyData(new Capped(value, MAX_FIELD_BYTES));
                    } catch (TooLarge e) {
                        throw bad("field_too_large", "The field " + name + " is longer than " + MAX_FIELD_BYTES + " bytes", name);
                    }
                    if (fields.putIfAbsent(name, value.toString(StandardCharsets.UTF_8)) != null)
                        throw bad("duplicate_field", "The field " + name + " is sent twice", name);
                }
                more = input.readBoundary();
            }
            return new Parsed(Map.copyOf(fields), file, filename);
        } catch (MultipartInput.MalformedStreamException | org.apache.commons.fileupload2.core.FileUploadSizeException e) {
            if (file != null) file.discard();
            throw bad("invalid_multipart", "The multipart body is malformed: " + e.getMessage(), null);
        } catch (IOException | RuntimeException e) {
            if (file != null) file.discard();
            throw e;
        }
    }

    /** The {@code Content-Disposition} parameters ({@code name}, {@code filename}) of a part's raw headers. */
    static Map<String, String> disposition(String headers) {
        for (var line : headers.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon <= 0) continue;
            if (!line.substring(0, colon).strip().equalsIgnoreCase("Content-Disposition")) continue;
            var value = line.substring(colon + 1).strip();
            if (!value.toLowerCase(Locale.ROOT).startsWith("form-data")) break;
            var params = parser().parse(value, ';');
            var out = new LinkedHashMap<String, String>();
            params.forEach((k, v) -> {
                if (k != null && v != null) out.put(k, v);
            });
            if (value.contains("filename") && !out.containsKey("filename") && params.containsKey("filename")) out.put("filename", "");
            return out;
        }
        throw bad("invalid_multipart", "A part has no Content-Disposition: form-data header", null);
    }

    private static ParameterParser parser() {
        var parser = new ParameterParser();
        parser.setLowerCaseNames(true);
        return parser;
    }

    static HttpStatusException bad(String code, String message, String param) {
        return ApiError.badRequest(code, message, param).exception();
    }

    /** Writes through to {@code out} until {@code limit} bytes have passed, then throws {@link TooLarge}. */
    private static final class Capped extends OutputStream {
        private final OutputStream out;
        private final long limit;
        private long written;

        Capped(OutputStream out, long limit) {
            this.out = out;
            this.limit = limit;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (written + len > limit) throw new TooLarge(limit);
            out.write(b, off, len);
            written += len;
        }
    }
}
