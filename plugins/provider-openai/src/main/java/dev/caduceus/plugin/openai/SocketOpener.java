package dev.caduceus.plugin.openai;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * Opens connections: TCP connect and, for https, the TLS handshake, both under the connect timeout.
 * TLS sends SNI (for host names) and verifies the certificate's name ({@code HTTPS} endpoint
 * identification), as the JDK client did. Thread-safe.
 */
final class SocketOpener {
    /** Receives the socket before it connects, so another thread can abort the connect by closing it. */
    interface Attach {
        void socket(Socket socket) throws IOException;
    }

    private final int connectTimeoutMillis;
    private final SSLContext tls;
    private volatile SSLSocketFactory factory;

    /** @param tls the TLS context, or {@code null} for the JDK default (loaded on the first https connect) */
    SocketOpener(Duration connectTimeout, SSLContext tls) {
        this.connectTimeoutMillis = (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis());
        this.tls = tls;
    }

    /**
     * A connected (and handshaken) connection to {@code origin}. Failures to reach the host are
     * {@link ConnectException}s, a connect or handshake that outlasts the timeout a
     * {@link SocketTimeoutException}, TLS failures {@link javax.net.ssl.SSLException}s.
     */
    Http1Connection open(Origin origin, Attach attach) throws IOException {
        var raw = new Socket();
        attach.socket(raw);
        try {
            var address = new InetSocketAddress(origin.hostName(), origin.port());
            if (address.isUnresolved()) throw new ConnectException("Unknown host " + origin.hostName());
            connect(raw, address);
            raw.setTcpNoDelay(true); // request and SSE chunks are small: never wait for Nagle
            if (!origin.secure()) return new Http1Connection(origin, raw, raw);
            return new Http1Connection(origin, raw, handshake(raw, origin));
        } catch (IOException | RuntimeException e) {
            raw.close();
            throw e;
        }
    }

    private void connect(Socket raw, InetSocketAddress address) throws IOException {
        try {
            raw.connect(address, connectTimeoutMillis);
        } catch (SocketTimeoutException | ConnectException e) {
            throw e;
        } catch (IOException e) {
            if (raw.isClosed()) throw e; // aborted by another thread: not a reachability problem
            // no route, network unreachable, …: all mean "cannot reach", as the JDK client reported them
            var unreachable = new ConnectException(e.getMessage());
            unreachable.initCause(e);
            throw unreachable;
        }
    }

    private SSLSocket handshake(Socket raw, Origin origin) throws IOException {
        var ssl = (SSLSocket) factory().createSocket(raw, origin.hostName(), origin.port(), true);
        var params = ssl.getSSLParameters();
        params.setEndpointIdentificationAlgorithm("HTTPS");
        if (!origin.ipLiteral()) params.setServerNames(List.of(new SNIHostName(origin.hostName())));
        ssl.setSSLParameters(params);
        ssl.setSoTimeout(connectTimeoutMillis); // the handshake is part of connecting
        ssl.startHandshake();
        ssl.setSoTimeout(0); // reads are bounded by the caller's deadline, which closes the socket
        return ssl;
    }

    private SSLSocketFactory factory() throws IOException {
        var f = factory;
        if (f == null) {
            try {
                f = (tls != null ? tls : SSLContext.getDefault()).getSocketFactory();
            } catch (NoSuchAlgorithmException e) {
                throw new IOException("No default TLS context: " + e.getMessage(), e);
            }
            factory = f;
        }
        return f;
    }
}
