package dev.caduceus.platform.host.http;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.http.ClientGoneException;
import dev.caduceus.spi.http.HttpStatusException;
import java.time.Duration;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last pipeline step: calls the matched route's {@link dev.caduceus.spi.http.HttpHandler} on the
 * request's (virtual) thread through a {@link InboundExchange}, and turns its outcome into exactly one
 * answer. {@link HttpStatusException}: its envelope and headers. {@link ClientGoneException} or a
 * vanished client: nothing. A {@link dev.caduceus.spi.store.PluginDatabase.StoreException} marked unavailable
 * (the database unreachable): 503 {@code database_unavailable}. Anything else: logged with the request id, 500 {@code internal_error}
 * (with {@code x-should-retry: false} on POST: tools may already have run). No answer at all: 204.
 */
final class DispatchHandler extends Handler.Abstract {
    private static final Logger LOG = LoggerFactory.getLogger(DispatchHandler.class);

    private final ObjectMapper hostMapper;
    private final ObjectReader bodies;
    private final ErrorBodies errors;
    private final long maxBodyBytes;
    private final RequestRecorder recorder;
    private final BodyBudget budget;
    private final BodyPace pace;

    DispatchHandler(ObjectMapper hostMapper, ErrorBodies errors, long maxBodyBytes, BodyBudget budget, BodyPace pace,
                    RequestRecorder recorder) {
        super(InvocationType.BLOCKING);
        this.recorder = recorder;
        this.hostMapper = hostMapper;
        this.bodies = hostMapper.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS); // one per server
        this.errors = errors;
        this.maxBodyBytes = maxBodyBytes;
        this.budget = budget;
        this.pace = pace;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        var match = RouteHandler.match(request);
        if (match == null) return false;                      // unreachable: the gate answers preflights
        var out = new ResponseWriter(request, response);
        var exchange = new InboundExchange(request, out, match, hostMapper, bodies, maxBodyBytes, budget, pace, recorder);
        try {
            match.entry().handler().handle(exchange);
            exchange.finish();
        } catch (HttpStatusException e) {
            answerError(exchange, out, e.error(), null);
        } catch (ClientGoneException e) {
            out.markGone(e);
        } catch (dev.caduceus.spi.store.PluginDatabase.StoreException e) {
            if (e.unavailable()) {
                LOG.warn("{} {} (request {}): {}", exchange.method(), exchange.path(), exchange.requestId(), e.getMessage());
                answerError(exchange, out, ApiErrors.databaseUnavailable(), null);
            } else {
                answerError(exchange, out, internal(request), e);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            answerError(exchange, out, internal(request), e);
        } catch (Exception | LinkageError | AssertionError e) {
            if (e instanceof HttpException http && http.getCode() < 500) {
                answerError(exchange, out, ApiErrors.forStatus(http.getCode(), exchange.method(), exchange.path(), e.getMessage()), null);
            } else {
                answerError(exchange, out, internal(request), e);
            }
        } finally {
            out.stopWatching(); // before the response can complete: see HangupWatch
            RequestRecorder.runId(request, org.slf4j.MDC.get(dev.caduceus.platform.host.logging.MdcKeys.RUN_ID));
        }
        if (out.gone()) callback.failed(out.failure());
        else callback.succeeded();
        return true;
    }

    private void answerError(InboundExchange exchange, ResponseWriter out, ApiError error, Throwable cause) {
        if (cause != null) {
            LOG.error("Handler failed: {} {} (route {} of plugin {}, request {}, key {})", exchange.method(),
                    exchange.path(), exchange.matchTemplate(), exchange.pluginId(), exchange.requestId(),
                    exchange.caller().name(), cause);
        }
        if (out.gone()) return;
        if (exchange.answered() || out.response().isCommitted()) {
            if (cause == null)
                LOG.warn("Handler threw {} after answering (request {}); closing the response", error.code(), exchange.requestId());
            exchange.finishQuietly();
            return;
        }
        errors.prepare(out.response(), error);
        exchange.closeIfBodyLeft();
        out.write(true, java.nio.ByteBuffer.wrap(errors.bytes(error)));
    }

    private static ApiError internal(Request request) {
        var error = ApiErrors.internal();
        return "POST".equalsIgnoreCase(request.getMethod()) ? error.withHeader("x-should-retry", "false") : error;
    }
}
