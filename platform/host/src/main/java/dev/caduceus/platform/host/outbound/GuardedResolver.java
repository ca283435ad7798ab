package dev.caduceus.platform.host.outbound;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.eclipse.jetty.client.Destination;
import org.eclipse.jetty.util.Promise;
import org.eclipse.jetty.util.SocketAddressResolver;

/**
 * Name resolution for the outbound client that applies an {@link EgressPolicy} to what it returns:
 * the client connects only to the addresses this resolver hands it, so the policy is checked on the
 * address actually connected, not on an earlier lookup (a name that answers a public address to a
 * check and a loopback address to the connect gets nowhere). Every allowed address is returned, in
 * the resolver's order, so the client can try the next when one fails; refused ones are dropped; if
 * none is left the connect fails with {@link EgressRefusedException}. The lookup runs on the given
 * executor (the client's pool), as Jetty's own asynchronous resolver does, so a DNS server that never
 * answers holds a pool thread but not the caller: the request's total timeout or a cancel still ends
 * the exchange at once. Thread-safe.
 */
public final class GuardedResolver implements SocketAddressResolver {
    /** A name lookup; the system resolver by default, a scripted one in tests. */
    @FunctionalInterface
    public interface Lookup {
        InetAddress[] all(String host) throws UnknownHostException;
    }

    private final EgressPolicy policy;
    private final Lookup lookup;
    private final Executor executor;

    /** Looking names up on {@code executor}. */
    public GuardedResolver(EgressPolicy policy, Lookup lookup, Executor executor) {
        this.policy = policy;
        this.lookup = lookup;
        this.executor = executor;
    }

    /** Looking names up on the calling thread. */
    public GuardedResolver(EgressPolicy policy, Lookup lookup) {
        this(policy, lookup, Runnable::run);
    }

    public GuardedResolver(EgressPolicy policy) {
        this(policy, InetAddress::getAllByName);
    }

    /**
     * Resolves what the client connects to. Through a proxy that is the proxy (configured by the
     * operator, so not subject to the policy); the target's name, which the proxy resolves, is then
     * checked by name only: blocked names and literal internal addresses are refused.
     */
    @Override
    public void resolve(String host, int port, Map<String, Object> context, Promise<List<InetSocketAddress>> promise) {
        try {
            executor.execute(() -> resolveNow(host, port, context, promise));
        } catch (RejectedExecutionException e) {
            promise.failed(e); // the client is stopping
        }
    }

    private void resolveNow(String host, int port, Map<String, Object> context, Promise<List<InetSocketAddress>> promise) {
        try {
            if (context != null && context.get(Destination.CONTEXT_KEY) instanceof Destination destination
                    && destination.getProxy() != null) {
                checkName(destination.getOrigin().getAddress().getHost());
                var all = new ArrayList<InetSocketAddress>();
                for (var address : lookup.all(host)) all.add(named(host, address, port));
                promise.succeeded(all);
            } else {
                promise.succeeded(resolve(host, port));
            }
        } catch (Exception e) {
            promise.failed(e);
        }
    }

    /** Refuses a blocked name or a literal internal address, without resolving anything. */
    void checkName(String host) throws EgressRefusedException {
        var refusedName = policy.refuseName(host);
        if (refusedName.isPresent()) throw new EgressRefusedException("Blocked: " + refusedName.get());
        var name = EgressPolicy.normalize(host);
        if (policy.restricts() && isLiteral(name)) {
            try {
                if (!policy.allows(InetAddress.getByName(name)))
                    throw new EgressRefusedException("Blocked: " + name + " is a " + policy.refusedKind() + " address");
            } catch (UnknownHostException e) {
                throw new EgressRefusedException("Blocked: " + name + " is not a valid address");
            }
        }
    }

    private static boolean isLiteral(String name) {
        return name.indexOf(':') >= 0 || name.chars().allMatch(c -> c == '.' || (c >= '0' && c <= '9'));
    }

    /**
     * {@code address} and {@code port} carrying {@code host} as its name. Jetty takes the TLS peer name
     * (the certificate check and SNI) from {@link InetSocketAddress#getHostString()}, so an address
     * without the requested name, as a lookup of its own may answer, would have the certificate checked
     * against the IP address instead of the URL's host.
     */
    private static InetSocketAddress named(String host, InetAddress address, int port) throws UnknownHostException {
        var name = EgressPolicy.normalize(host);
        var named = address instanceof Inet6Address v6 && v6.getScopeId() != 0
                ? Inet6Address.getByAddress(name, v6.getAddress(), v6.getScopeId())
                : InetAddress.getByAddress(name, address.getAddress());
        return new InetSocketAddress(named, port);
    }

    /** The allowed addresses of {@code host} with {@code port}, in order. */
    public List<InetSocketAddress> resolve(String host, int port) throws UnknownHostException, EgressRefusedException {
        var refusedName = policy.refuseName(host);
        if (refusedName.isPresent()) throw new EgressRefusedException("Blocked: " + refusedName.get());
        var name = EgressPolicy.normalize(host);
        var addresses = lookup.all(name);
        var allowed = new ArrayList<InetSocketAddress>(addresses.length);
        for (var address : addresses) if (policy.allows(address)) allowed.add(named(name, address, port));
        if (allowed.isEmpty())
            throw new EgressRefusedException("Blocked: " + name + (isLiteral(name) ? " is a " + policy.refusedKind() + " address"
                    : " resolves only to " + policy.refusedKind() + " addresses"));
        return List.copyOf(allowed);
    }
}
