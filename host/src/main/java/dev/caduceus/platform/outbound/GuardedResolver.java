package dev.caduceus.platform.outbound;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.util.Promise;
import org.eclipse.jetty.util.SocketAddressResolver;

/**
 * Name resolution for the outbound client that applies an {@link EgressPolicy} to what it returns:
 * the client connects only to the addresses this resolver hands it, so the policy is checked on the
 * address actually connected, not on an earlier lookup (a name that answers a public address to a
 * check and a loopback address to the connect gets nowhere). Every allowed address is returned, in
 * the resolver's order, so the client can try the next when one fails; refused ones are dropped; if
 * none is left the connect fails with {@link EgressRefusedException}. Resolution blocks the calling
 * thread, as Jetty's own synchronous resolver does. Thread-safe.
 */
public final class GuardedResolver implements SocketAddressResolver {
    /** A name lookup; the system resolver by default, a scripted one in tests. */
    @FunctionalInterface
    public interface Lookup {
        InetAddress[] all(String host) throws UnknownHostException;
    }

    private final EgressPolicy policy;
    private final Lookup lookup;

    public GuardedResolver(EgressPolicy policy, Lookup lookup) {
        this.policy = policy;
        this.lookup = lookup;
    }

    public GuardedResolver(EgressPolicy policy) {
        this(policy, InetAddress::getAllByName);
    }

    @Override
    public void resolve(String host, int port, Map<String, Object> context, Promise<List<InetSocketAddress>> promise) {
        try {
            promise.succeeded(resolve(host, port));
        } catch (Exception e) {
            promise.failed(e);
        }
    }

    /** The allowed addresses of {@code host} with {@code port}, in order. */
    public List<InetSocketAddress> resolve(String host, int port) throws UnknownHostException, EgressRefusedException {
        var refusedName = policy.refuseName(host);
        if (refusedName.isPresent()) throw new EgressRefusedException("Blocked: " + refusedName.get());
        var name = EgressPolicy.normalize(host);
        var addresses = lookup.all(name);
        var allowed = new ArrayList<InetSocketAddress>(addresses.length);
        for (var address : addresses) if (policy.allows(address)) allowed.add(new InetSocketAddress(address, port));
        if (allowed.isEmpty())
            throw new EgressRefusedException("Blocked: " + name + " resolves only to private or internal network addresses");
        return List.copyOf(allowed);
    }
}
