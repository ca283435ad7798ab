package dev.caduceus.platform.host.http;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.http.ApiError;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The one writer of the contract's error envelope
 * {@code {"error":{"message":…,"type":…,"param":…,"code":…}}}, used by every error path: pipeline
 * steps, handler exceptions and {@link JsonErrorHandler}. Stateless apart from the host mapper;
 * safe to share.
 */
final class ErrorBodies {
    static final String JSON = "application/json; charset=utf-8";

    private final ObjectMapper mapper;

    ErrorBodies(ObjectMapper mapper) {
        this.mapper = requireNonNull(mapper, "mapper");
    }

    /** The envelope as a JSON tree, keys in contract order, all four always present. */
    ObjectNode envelope(ApiError error) {
        var root = mapper.createObjectNode();
        var body = root.putObject("error");
        body.put("message", error.message());
        body.put("type", error.type());
        if (error.param() == null) body.putNull("param");
        else body.put("param", error.param());
        body.put("code", error.code());
        return root;
    }

    /** The envelope as compact UTF-8 bytes. */
    byte[] bytes(ApiError error) {
        try {
            return mapper.writeValueAsBytes(envelope(error));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialize an error envelope", e); // a tree of strings: never
        }
    }

    /**
     * Sets status, the error's headers and the JSON content type, then writes the body as the last
     * write; {@code callback} completes when it is written. The response must not be committed.
     */
    void write(Response response, Callback callback, ApiError error) {
        prepare(response, error);
        response.write(true, ByteBuffer.wrap(bytes(error)), callback);
    }

    /** Sets status and headers of {@code error} on {@code response}, without writing. */
    void prepare(Response response, ApiError error) {
        RequestRecorder.errorCode(response.getRequest(), error.code());
        response.setStatus(error.status());
        var headers = response.getHeaders();
        error.headers().forEach(headers::put);
        headers.put(HttpHeader.CONTENT_TYPE, JSON);
    }
}
