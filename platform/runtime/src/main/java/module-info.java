/**
 * The Caduceus agent runtime: the run service, the agent loop, tool dispatch, sessions, redaction
 * ({@code dev.caduceus.platform.runtime.agent}), the durable run journal ({@code dev.caduceus.platform.runtime.journal}) and
 * the nodes sharing one database ({@code dev.caduceus.platform.runtime.cluster}), the model routes
 * ({@code dev.caduceus.platform.runtime.routing}) and what model calls cost ({@code dev.caduceus.platform.runtime.spend}),
 * and the platform's one
 * wiring point, {@code dev.caduceus.platform.runtime.assembly.Assembly}, which builds the host's and the
 * runtime's parts for every application (serve, batch, the commands). Exported to the applications only.
 */
@SuppressWarnings("module")                                  // the qualified exports name modules built later
module dev.caduceus.platform.runtime {
    requires transitive dev.caduceus.platform.host;
    requires org.slf4j;

    exports dev.caduceus.platform.runtime.assembly to dev.caduceus.platform.batch, dev.caduceus.platform.server;
    exports dev.caduceus.platform.runtime.agent to dev.caduceus.platform.batch, dev.caduceus.platform.server;
    exports dev.caduceus.platform.runtime.journal to dev.caduceus.platform.batch, dev.caduceus.platform.server;
    exports dev.caduceus.platform.runtime.cluster to dev.caduceus.platform.server;
    exports dev.caduceus.platform.runtime.routing to dev.caduceus.platform.batch, dev.caduceus.platform.server;
    exports dev.caduceus.platform.runtime.spend to dev.caduceus.platform.server;
}
