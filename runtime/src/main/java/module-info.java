/**
 * The Caduceus agent runtime: the run service, the agent loop, tool dispatch, sessions, redaction
 * ({@code dev.caduceus.platform.agent}), the durable run journal ({@code dev.caduceus.platform.journal}) and
 * the nodes sharing one database ({@code dev.caduceus.platform.cluster}).
 * Built on the host; wired by the applications (serve, batch), exported to them only.
 */
@SuppressWarnings("module")                                  // the qualified exports name modules built later
module dev.caduceus.runtime {
    requires transitive dev.caduceus.host;
    requires org.slf4j;

    exports dev.caduceus.platform.agent to dev.caduceus.batch, dev.caduceus.server;
    exports dev.caduceus.platform.journal to dev.caduceus.batch, dev.caduceus.server;
    exports dev.caduceus.platform.cluster to dev.caduceus.server;
}
