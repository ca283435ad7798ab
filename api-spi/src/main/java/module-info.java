/**
 * The Caduceus plugin contract. Plugins compile against this module only (scope {@code provided});
 * it depends on the JDK and Jackson, never on Jetty, jdbi or PF4J. Start at
 * {@link dev.caduceus.spi.PlatformPlugin}.
 */
module dev.caduceus.spi {
    requires transitive com.fasterxml.jackson.databind;   // JSON values are part of the contract
    requires transitive java.sql;                         // ResultSet in Sql.RowMapper

    exports dev.caduceus.spi;
    exports dev.caduceus.spi.http;
    exports dev.caduceus.spi.agent;
    exports dev.caduceus.spi.message;
    exports dev.caduceus.spi.model;
    exports dev.caduceus.spi.tool;
    exports dev.caduceus.spi.store;
    exports dev.caduceus.spi.config;
    exports dev.caduceus.spi.outbound;
    exports dev.caduceus.spi.metrics;
    exports dev.caduceus.spi.webhook;

    // Value records are (de)serialized by the platform's mapper (journal, wire formats).
    opens dev.caduceus.spi to com.fasterxml.jackson.databind;
    opens dev.caduceus.spi.agent to com.fasterxml.jackson.databind;
    opens dev.caduceus.spi.message to com.fasterxml.jackson.databind;
    opens dev.caduceus.spi.model to com.fasterxml.jackson.databind;
    opens dev.caduceus.spi.tool to com.fasterxml.jackson.databind;
    opens dev.caduceus.spi.http to com.fasterxml.jackson.databind;
}
