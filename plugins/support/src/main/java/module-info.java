/**
 * Helpers for plugin authors, outside the contract: a plugin bundles this jar (or not) and no SPI
 * signature mentions its types. Depends only on the SPI.
 */
module dev.caduceus.support {
    requires transitive dev.caduceus.spi;

    exports dev.caduceus.support.cancel;
    exports dev.caduceus.support.clienttools;
    exports dev.caduceus.support.files;
    exports dev.caduceus.support.idempotency;
    exports dev.caduceus.support.ids;
    exports dev.caduceus.support.json;
    exports dev.caduceus.support.reasoning;
    exports dev.caduceus.support.services;
    exports dev.caduceus.support.settings;
    exports dev.caduceus.support.sql;
    exports dev.caduceus.support.stream;
    exports dev.caduceus.support.wire;

    opens dev.caduceus.support.services to com.fasterxml.jackson.databind; // carried across plugins as JSON
}
