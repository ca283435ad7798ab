package dev.caduceus.platform.host.outbound;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.io.Content;

/**
 * The one response listener of a Jetty request: hands the caller the response head with Jetty's own
 * {@link Content.Source} for the body (which the caller then reads itself, see {@link SourceStream}),
 * or the failure that came first, and says when Jetty finished the exchange (the connection is then
 * back in the pool). Nothing here blocks or copies content: Jetty calls it on the thread that read
 * the response (a virtual thread of {@link VirtualThreadEndPoint}'s).
 *
 * <p>Threading: Jetty's callbacks on its threads; {@link #head()} and {@link #awaitComplete} on the caller's.
 */
final class BodyListener implements Response.ContentSourceListener, Response.CompleteListener {
    /** A response whose headers arrived, and its body. */
    record Head(Response response, SourceStream body) {}

    private final CompletableFuture<Head> head = new CompletableFuture<>();
    private final CountDownLatch complete = new CountDownLatch(1);
    private volatile Throwable failure;

    @Override
    public void onContentSource(Response response, Content.Source body) {
        head.complete(new Head(response, SourceStream.start(body))); // the pump starts here, on Jetty's thread
    }

    @Override
    public void onComplete(Result result) {
        if (result.isFailed()) {
            failure = result.getFailure();
            head.completeExceptionally(failure);
        }
        else if (!head.isDone()) // a response without content (204, HEAD): onContentSource never came
            head.complete(new Head(result.getResponse(), SourceStream.start(Content.Source.from(ByteBuffer.allocate(0)))));
        complete.countDown();
    }

    /** Waits for the headers (or the failure that came first). */
    Head head() throws InterruptedException, ExecutionException {
        return head.get();
    }

    /**
     * How the exchange failed once it completed, or null. A protocol handler that buffered a response
     * (a 407 without a challenge) hands its whole body on and only then the failure.
     */
    Throwable failure() {
        return failure;
    }

    /** Waits, at most {@code timeout}, until Jetty finished the exchange; whether it did. */
    boolean awaitComplete(long timeout, TimeUnit unit) throws InterruptedException {
        return complete.await(timeout, unit);
    }
}
