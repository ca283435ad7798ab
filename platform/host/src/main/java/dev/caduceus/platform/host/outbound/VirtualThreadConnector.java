package dev.caduceus.platform.host.outbound;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.concurrent.ThreadFactory;
import javax.net.ssl.SSLException;
import org.eclipse.jetty.io.ClientConnectionFactory;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.Transport;
import org.eclipse.jetty.util.IO;
import org.eclipse.jetty.util.Promise;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * Jetty's {@link ClientConnector} with TCP connections on {@link VirtualThreadEndPoint}s: connects on a
 * virtual thread (blocking, with the connect timeout) and opens the endpoint and Jetty's connection as
 * Jetty's selector would. Other transports (none today) keep Jetty's selector.
 *
 * <p>TLS is made ready at the first TLS connection, not when the client starts: starting Jetty's
 * {@link SslContextFactory} loads the JDK's trust store and TLS provider, ~85 ms of CPU that a client
 * of plain-http upstreams (a local model) never needs, and that otherwise fell on the first chat turn
 * after a start (bench/README.md, issue 48). Every TLS connection Jetty's client makes (direct,
 * ALPN, through a proxy's tunnel) gets its factory from {@link #newSslClientConnectionFactory}.
 *
 * <p>Threading: thread-safe, as Jetty's.
 */
final class VirtualThreadConnector extends ClientConnector {
    private final ThreadFactory threads = Thread.ofVirtual().name("outbound-io").factory();

    /** Kept out of this connector's start (and so the client's): started by the first TLS connection. */
    @Override
    public void setSslContextFactory(SslContextFactory.Client factory) {
        super.setSslContextFactory(factory);
        if (factory != null) unmanage(factory);
    }

    @Override
    public ClientConnectionFactory newSslClientConnectionFactory(SslContextFactory.Client factory,
                                                                 ClientConnectionFactory next) {
        if (factory != null && !factory.isStarted()) {
            try {
                factory.start(); // Jetty's lifecycle lock: a second connection meanwhile waits, then finds it started
            } catch (Exception e) {
                // thrown from here it would escape Jetty's name-resolution callback and leave the request
                // waiting for its timeout; failing the connection it is for fails the request with the reason
                var failure = new SSLException("TLS could not be set up: " + e.getMessage(), e);
                return (endPoint, context) -> {
                    throw failure;
                };
            }
        }
        return super.newSslClientConnectionFactory(factory, next);
    }

    @Override
    protected void doStop() throws Exception {
        super.doStop();
        var factory = getSslContextFactory();
        if (factory != null) factory.stop();
    }

    @Override
    public void connect(SocketAddress address, Map<String, Object> context) {
        var transport = context.get(Transport.CONTEXT_KEY);
        if (!(address instanceof InetSocketAddress) || transport != null && transport != Transport.TCP_IP) {
            super.connect(address, context);
            return;
        }
        context.put(ClientConnector.CONTEXT_KEY, this);
        context.put(ClientConnector.REMOTE_SOCKET_ADDRESS_CONTEXT_KEY, address);
        threads.newThread(() -> open(address, context)).start();
    }

    private void open(SocketAddress address, Map<String, Object> context) {
        SocketChannel channel = null;
        try {
            channel = SocketChannel.open();
            configure(channel);
            channel.socket().connect(address, (int) getConnectTimeout().toMillis());
            var endPoint = new VirtualThreadEndPoint(getScheduler(), channel, threads);
            endPoint.setIdleTimeout(getIdleTimeout().toMillis());
            var connection = newConnection(endPoint, context);
            endPoint.setConnection(connection);
            endPoint.onOpen();
            @SuppressWarnings("unchecked")
            var promise = (Promise<Connection>) context.get(CONNECTION_PROMISE_CONTEXT_KEY);
            try {
                connection.onOpen();
                promise.succeeded(connection);
            } catch (Throwable x) {
                endPoint.close(x);
                promise.failed(x);
            }
        } catch (Throwable x) { // not only IOExceptions: UnresolvedAddressException is none
            if (x.getClass() == SocketException.class)
                x = new SocketException("Could not connect to " + address).initCause(x);
            IO.close(channel);
            connectFailed(channel, address, x, context);
        }
    }
}
