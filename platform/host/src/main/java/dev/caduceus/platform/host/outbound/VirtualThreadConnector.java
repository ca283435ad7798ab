package dev.caduceus.platform.host.outbound;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.concurrent.ThreadFactory;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.Transport;
import org.eclipse.jetty.util.IO;
import org.eclipse.jetty.util.Promise;

/**
 * Jetty's {@link ClientConnector} with TCP connections on {@link VirtualThreadEndPoint}s: connects on a
 * virtual thread (blocking, with the connect timeout) and opens the endpoint and Jetty's connection as
 * Jetty's selector would. Other transports (none today) keep Jetty's selector.
 *
 * <p>Threading: thread-safe, as Jetty's.
 */
final class VirtualThreadConnector extends ClientConnector {
    private final ThreadFactory threads = Thread.ofVirtual().name("outbound-io").factory();

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
