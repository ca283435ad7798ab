/**
 * The {@code caduceus} command line and the serve application: {@code dev.caduceus.platform.Main}
 * parses the command, {@code dev.caduceus.platform.Platform} wires the host, the runtime and Jetty
 * for {@code serve}. Exports nothing. Start at {@code dev.caduceus.platform.Platform}.
 */
module dev.caduceus.server {
    requires dev.caduceus.batch;                             // its command, mounted under caduceus batch
    requires info.picocli;
    requires org.slf4j;

    opens dev.caduceus.platform to info.picocli;             // command classes are reflected on
}
