package dev.caduceus.platform.host.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.http.HttpStatusException;
import java.util.List;

/**
 * Binds a parsed body to a plugin type with the plugin's mapper, turning binding errors into a 400
 * {@code invalid_request_error} whose {@code param} is the field path ({@code messages[2].content})
 * and whose message names the field without Java class names.
 */
final class BodyBinder {
    static final String CODE = "invalid_request_body";

    private final ObjectMapper mapper;

    BodyBinder(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    <T> T bind(JsonNode body, Class<T> type) {
        try {
            return mapper.treeToValue(body, type);
        } catch (JsonMappingException e) {
            throw bindingError(e);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            throw ApiError.badRequest(CODE, "Invalid request body", null).exception();
        }
    }

    private static HttpStatusException bindingError(JsonMappingException e) {
        var param = path(e.getPath());
        String detail;
        if (e instanceof ValueInstantiationException && e.getCause() != null && e.getCause().getMessage() != null) {
            detail = e.getCause().getMessage();                      // the record constructor's own words
        } else if (e instanceof MismatchedInputException m && m.getTargetType() != null) {
            detail = "expected " + describe(m.getTargetType());
        } else {
            detail = "invalid value";
        }
        var message = param == null ? "Invalid request body: " + detail : "Invalid '" + param + "': " + detail;
        return ApiError.badRequest(CODE, message, param).exception();
    }

    /** {@code messages[2].content} from Jackson's reference chain; {@code null} at the root. */
    static String path(List<JsonMappingException.Reference> references) {
        var sb = new StringBuilder();
        for (var ref : references) {
            if (ref.getIndex() >= 0) sb.append('[').append(ref.getIndex()).append(']');
            else if (ref.getFieldName() != null) sb.append(sb.isEmpty() ? "" : ".").append(ref.getFieldName());
        }
        return sb.isEmpty() ? null : sb.toString();
    }

    private static String describe(Class<?> type) {
        if (type == String.class || CharSequence.class.isAssignableFrom(type)) return "a string";
        if (type == boolean.class || type == Boolean.class) return "a boolean";
        if (type.isPrimitive() || Number.class.isAssignableFrom(type)) return "a number";
        if (type.isArray() || java.util.Collection.class.isAssignableFrom(type)) return "an array";
        if (type.isEnum()) return "one of " + List.of(type.getEnumConstants());
        return "an object";
    }
}
