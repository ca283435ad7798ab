package dev.caduceus.platform.host.http;

/**
 * The configured port is taken by another process. The caller turns it into exit status 2
 * (as for every configuration error).
 */
public final class PortInUseException extends RuntimeException {
    private final int port;

    public PortInUseException(int port, Throwable cause) {
        super("Port " + port + " is already in use", cause);
        this.port = port;
    }

    public int port() {
        return port;
    }
}
