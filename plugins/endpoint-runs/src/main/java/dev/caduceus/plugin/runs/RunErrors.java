package dev.caduceus.plugin.runs;

import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.http.HttpStatusException;

/**
 * The runs family's error answers that several routes share. Every 409 carries
 * {@code x-should-retry: false}: the platform adds it only to 500s, and the OpenAI SDKs retry
 * a 409 otherwise. Stateless.
 */
final class RunErrors {
    private RunErrors() {}

    /** 404 {@code run_not_found}, {@code Run not found: <id>}. */
    static HttpStatusException runNotFound(String runId) {
        return ApiError.notFound("run_not_found", "Run not found: " + runId).exception();
    }

    /** A 409 {@code invalid_request_error} that clients must not retry. */
    static HttpStatusException conflict(String code, String message) {
        return new ApiError(409, message, ApiError.INVALID_REQUEST, null, code)
                .withHeader("x-should-retry", "false").exception();
    }

    /** A 400 {@code invalid_request_error}. */
    static HttpStatusException badRequest(String code, String message, String param) {
        return ApiError.badRequest(code, message, param).exception();
    }
}
