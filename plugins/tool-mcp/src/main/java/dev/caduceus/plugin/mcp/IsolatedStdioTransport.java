package dev.caduceus.plugin.mcp;

import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonMapper;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import io.modelcontextprotocol.spec.McpSchema;
import reactor.core.publisher.Mono;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SDK's stdio transport with the child's environment reduced to exactly {@code environment}
 * (the SDK would add our {@code HOME}, {@code USER}, {@code SHELL} and more), started in {@code cwd},
 * and its stderr logged line by line with the server's name. {@link #process()} exposes the child so
 * that its death is noticed and its descendants are killed at stop.
 *
 * <p>Threading: as the SDK's transport. Lifecycle: one per connection; never reconnected.
 */
final class IsolatedStdioTransport extends StdioClientTransport {
    private static final Logger log = LoggerFactory.getLogger(IsolatedStdioTransport.class);

    private final Map<String, String> environment;
    private final Path cwd;
    private final CompletableFuture<Throwable> failed = new CompletableFuture<>();

    IsolatedStdioTransport(String server, String command, java.util.List<String> args, Map<String, String> environment,
                           Path cwd, McpJsonMapper json) {
        super(parameters(command, args, environment), json);
        this.environment = Map.copyOf(environment);
        this.cwd = cwd;
        setStdErrorHandler(line -> log.info("[mcp {}] {}", server, line));
    }

    private static ServerParameters parameters(String command, java.util.List<String> args, Map<String, String> environment) {
        var params = ServerParameters.builder(command).args(args).env(environment).build();
        // The SDK copies some of our own variables into the parameters (HOME, USER, SHELL, TERM, ...);
        // its map is the one it applies after getProcessBuilder(), so it is reduced here.
        params.getEnv().clear();
        params.getEnv().putAll(environment);
        return params;
    }

    @Override
    protected ProcessBuilder getProcessBuilder() {
        var builder = new ProcessBuilder();
        builder.environment().clear();
        builder.environment().putAll(environment);
        if (cwd != null) builder.directory(cwd.toFile());
        return builder;
    }

    @Override
    public Mono<Void> connect(Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
        return super.connect(handler).doOnError(failed::complete).doOnSuccess(ignored -> process().ifPresent(p ->
                p.onExit().thenAccept(exited -> failed.complete(new IllegalStateException(
                        "the process exited with code " + exited.exitValue())))));
    }

    /**
     * Errors when the child could not be started or has exited: the SDK only logs a failed start, so
     * without this an initialize would wait for its whole timeout.
     */
    Mono<McpSchema.InitializeResult> failure() {
        return Mono.fromFuture(failed).flatMap(Mono::error);
    }

    /** The child, once started (the SDK keeps it private). */
    Optional<Process> process() {
        try {
            Field field = StdioClientTransport.class.getDeclaredField("process");
            field.setAccessible(true);
            return Optional.ofNullable((Process) field.get(this));
        } catch (ReflectiveOperationException | RuntimeException e) {
            log.debug("Cannot reach the stdio child of the MCP transport", e);
            return Optional.empty();
        }
    }
}
