package dev.caduceus.plugin.openai;

/**
 * A response whose head has arrived; the body streams from {@code body}. Closing the response
 * closes the body, which hands the connection back (see {@link ResponseBody#close()}).
 *
 * @param status  the status code (never 1xx)
 * @param headers the header fields
 * @param body    the body as it arrives
 */
record Http1Response(int status, ResponseHeaders headers, ResponseBody body) implements AutoCloseable {
    @Override
    public void close() {
        body.close();
    }
}
