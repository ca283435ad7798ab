package dev.caduceus.platform.host.plugin;

import dev.caduceus.spi.http.HttpHandler;
import java.util.concurrent.Callable;

/**
 * The one way into plugin code: sets the thread context class loader to the plugin's loader for the
 * duration of the call and restores the previous one afterwards, even when the call throws
 * (every call into plugin code goes through here).
 *
 * <p>Threading: affects only the calling thread; safe from any thread.
 */
public final class PluginCalls {
    private PluginCalls() {}

    /** Plugin code that returns nothing. */
    @FunctionalInterface
    public interface Call {
        void run() throws Exception;
    }

    /** Calls {@code call} with {@code loader} as context class loader and returns its result. */
    public static <T> T with(ClassLoader loader, Callable<T> call) throws Exception {
        var thread = Thread.currentThread();
        var previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            return call.call();
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    /** Runs {@code call} with {@code loader} as context class loader. */
    public static void run(ClassLoader loader, Call call) throws Exception {
        with(loader, () -> {
            call.run();
            return null;
        });
    }

    /** A handler that runs {@code handler} with {@code loader} as context class loader, for the router. */
    public static HttpHandler wrap(ClassLoader loader, HttpHandler handler) {
        return exchange -> run(loader, () -> handler.handle(exchange));
    }
}
