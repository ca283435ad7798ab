/**
 * The Caduceus host: configuration, database, plugin loader, HTTP pipeline, auth, health, the
 * scheduler and the host's boot steps ({@code dev.caduceus.platform.host.boot.BootSteps}). Its packages are
 * exported only to the runtime and the applications, so a plugin that reaches for a host class
 * fails to link.
 */
@SuppressWarnings("module")                                  // the qualified exports name modules built later
module dev.caduceus.platform.host {
    requires transitive dev.caduceus.spi;
    requires transitive dev.caduceus.support;                // the Hermes JSON writer, inline reasoning
    requires transitive org.eclipse.jetty.server;
    requires transitive com.fasterxml.jackson.dataformat.yaml; // config.yaml
    requires com.fasterxml.jackson.datatype.jsr310;          // Instant and friends as ISO strings
    requires org.jdbi.v3.core;                               // automatic module
    requires org.xerial.sqlitejdbc;                          // JDBC driver, loaded by URL
    requires org.postgresql.jdbc;                            // PostgreSQL, for several nodes (automatic module)
    requires com.zaxxer.hikari;                              // its connection pool
    requires org.pf4j;                                       // 3.14.0: the last release with module-info
    requires org.slf4j;
    requires io.prometheus.metrics.core;                     // GET /metrics (automatic modules)
    requires io.prometheus.metrics.model;
    requires io.prometheus.metrics.config;
    requires io.prometheus.writer.text;
    requires io.prometheus.metrics.instrumentation.jvm;
    requires ch.qos.logback.classic;                         // the logging backend, configured in code
    requires ch.qos.logback.core;
    requires jul.to.slf4j;                                   // java.util.logging into SLF4J
    requires java.logging;
    requires java.management;                                // the JVM flags, for the JVM metrics
    requires java.net.http;     // not used by the host: keeps the JDK client resolvable for third-party plugins built on it
    requires org.eclipse.jetty.client;                       // the one outbound HTTP stack
    requires org.eclipse.jetty.http2.client;
    requires org.eclipse.jetty.http2.client.transport;
    requires org.eclipse.jetty.alpn.java.client;             // ALPN for https (a service provider)

    uses dev.caduceus.spi.PlatformPlugin;                    // found per plugin class loader
    provides ch.qos.logback.classic.spi.Configurator         // logback starts configured, never from XML
            with dev.caduceus.platform.host.logging.EnvironmentConfigurator;

    exports dev.caduceus.platform.host.auth to dev.caduceus.platform.runtime, dev.caduceus.platform.batch, dev.caduceus.platform.server;
    exports dev.caduceus.platform.host.boot to dev.caduceus.platform.runtime, dev.caduceus.platform.batch, dev.caduceus.platform.server;
    exports dev.caduceus.platform.host.config to dev.caduceus.platform.runtime, dev.caduceus.platform.batch, dev.caduceus.platform.server;
    exports dev.caduceus.platform.host.health to dev.caduceus.platform.runtime, dev.caduceus.platform.batch, dev.caduceus.platform.server;
    exports dev.caduceus.platform.host.http to dev.caduceus.platform.runtime, dev.caduceus.platform.batch, dev.caduceus.platform.server;
    exports dev.caduceus.platform.host.metrics to dev.caduceus.platform.runtime, dev.caduceus.platform.batch, dev.caduceus.platform.server;
    exports dev.caduceus.platform.host.json to dev.caduceus.platform.runtime, dev.caduceus.platform.batch, dev.caduceus.platform.server;
    exports dev.caduceus.platform.host.outbound to dev.caduceus.platform.runtime, dev.caduceus.platform.batch, dev.caduceus.platform.server;
    exports dev.caduceus.platform.host.webhooks to dev.caduceus.platform.runtime, dev.caduceus.platform.server;
    exports dev.caduceus.platform.host.plugin to dev.caduceus.platform.runtime, dev.caduceus.platform.batch, dev.caduceus.platform.server;
    exports dev.caduceus.platform.host.schedule to dev.caduceus.platform.runtime, dev.caduceus.platform.batch, dev.caduceus.platform.server;
    exports dev.caduceus.platform.host.store to dev.caduceus.platform.runtime, dev.caduceus.platform.batch, dev.caduceus.platform.server;
    exports dev.caduceus.platform.host.logging to dev.caduceus.platform.runtime, dev.caduceus.platform.batch, dev.caduceus.platform.server;
}
