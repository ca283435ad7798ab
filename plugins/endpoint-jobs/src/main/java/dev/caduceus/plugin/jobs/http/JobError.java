package dev.caduceus.plugin.jobs.http;

/**
 * A jobs API error: the contract's flat {@code {"error": "<message>"}} body (http-api §2.2, §10)
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
