/**
 * The Caduceus host: configuration, database, plugin loader and HTTP pipeline. Exports nothing, so a
 * plugin that reaches for a platform class fails to link. Start at
 * {@code dev.caduceus.platform.Platform}.
 */
module dev.caduceus.platform {
    requires dev.caduceus.spi;
    requires org.eclipse.jetty.server;
    requires com.fasterxml.jackson.dataformat.yaml;          // config.yaml
    requires com.fasterxml.jackson.datatype.jsr310;          // Instant and friends as ISO strings
    requires org.jdbi.v3.core;                               // automatic module
    requires org.xerial.sqlitejdbc;                          // JDBC driver, loaded by URL
    requires org.pf4j;                                       // 3.14.0: the last release with module-info
    requires org.slf4j;
    requires info.picocli;
    requires java.net.http;                                  // model health probe

    uses dev.caduceus.spi.PlatformPlugin;                    // found per plugin class loader

    opens dev.caduceus.platform to info.picocli;             // command classes are reflected on
    opens dev.caduceus.platform.batch to info.picocli;       // the batch command's options
}
