package dev.caduceus.plugin.jobs.http;

/**
 * A jobs API error: the flat {@code {"error": "<message>"}} body (as in Hermes, unlike the other APIs' envelope)
 * with {@code status}. Thrown by validation and handlers, answered by {@link FlatErrors}. Cheap: no
 * stack trace.
 */
final class JobError extends RuntimeException {
    static final String INVALID_JSON = "Invalid JSON in request body";

    private final int status;

    JobError(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    int status() {
        return status;
    }

    static JobError badRequest(String message) {
        return new JobError(400, message);
    }

    static JobError notFound() {
        return new JobError(404, "Job not found");
    }
}
