/**
 * The {@code caduceus} command line and the serve application: {@code dev.caduceus.platform.server.Main}
 * parses the command, {@code dev.caduceus.platform.server.Platform} wires the host, the runtime and Jetty
 * for {@code serve}. Exports nothing. Start at {@code dev.caduceus.platform.server.Platform}.
 */
module dev.caduceus.platform.server {
    requires dev.caduceus.platform.batch;                             // its command, mounted under caduceus batch
    requires info.picocli;
    requires org.slf4j;

    opens dev.caduceus.platform.server to info.picocli;             // command classes are reflected on
}
