package dev.caduceus.platform.host.logging;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * Logback's own start-up hook (a {@link Configurator} service): whenever logback starts in a JVM that
 * has the host, it is configured from the environment as {@link LogSetup} does, instead of logback
 * looking for XML files (Joran, slow to start) or falling back to debug on stdout. That covers every
 * process: the server, tests, the benchmarks' tools. An invalid variable falls back to info here;
 * {@code Main} reports it.
 *
 * <p>Instantiated by logback through {@link java.util.ServiceLoader}, once per logger context, on
 * the thread that first asks SLF4J for a logger.
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_NORMAL_PRIORITY)
public final class EnvironmentConfigurator extends ContextAwareBase implements Configurator {
    /** For the service loader. */
    public EnvironmentConfigurator() {}

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        LogSettings settings;
        try {
            settings = LogSettings.fromEnvironment(System.getenv());
        } catch (IllegalArgumentException e) {
            settings = LogSettings.defaults();
        }
        LogSetup.apply(context, settings);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }
}
