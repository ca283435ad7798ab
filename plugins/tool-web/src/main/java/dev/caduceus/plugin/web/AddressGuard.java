package dev.caduceus.plugin.web;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The address guard (against server-side request forgery): decides whether {@code web_extract} may fetch a URL. Only
 * {@code http}/{@code https}; the host is resolved and every address must be public (loopback,
 * private, link-local, CGNAT, unspecified, multicast, reserved, benchmark and documentation ranges
 * are refused, also in IPv4-mapped, IPv4-compatible, NAT64 and 6to4 forms). Metadata endpoints and
 * {@code tools.web.blocked_hosts} are refused even when {@code allow_private_addresses} is true.
 *
 * <p>DNS rebinding: the check resolves through {@link InetAddress#getAllByName}, which fills the JVM's
 * positive lookup cache (30 s by default); the HTTP client connects right after and resolves through
 * the same cache, so it gets the addresses that were checked. Setting
 * {@code networkaddress.cache.ttl=0} would reopen that window (see README). Immutable; thread-safe.
 */
final class AddressGuard {
    static final String BLOCKED = "Blocked: URL targets a private or internal network address";

    private static final Set<String> METADATA_NAMES = Set.of("metadata.google.internal", "metadata");
    private static final List<InetAddress> METADATA_ADDRESSES = List.of(
            literal("169.254.169.254"), literal("fd00:ec2::254"));

    private final boolean allowPrivate;
    private final List<Pattern> blockedHosts;
    private final Resolver resolver;

    /** Name resolution, replaceable in tests. */
    @FunctionalInterface
    interface Resolver {
        InetAddress[] resolve(String host) throws UnknownHostException;
    }

    /** A URL the guard refused, with the message for the per-URL error. */
    static final class Refused extends Exception {
        Refused(String message) {
            super(message, null, false, false);
        }
    }

    AddressGuard(boolean allowPrivate, List<String> blockedHostGlobs, Resolver resolver) {
        this.allowPrivate = allowPrivate;
        this.blockedHosts = blockedHostGlobs.stream().map(AddressGuard::glob).toList();
        this.resolver = resolver;
    }

    AddressGuard(WebSettings settings) {
        this(settings.allowPrivate(), settings.blockedHosts(), InetAddress::getAllByName);
    }

    /** Returns normally when {@code uri} may be fetched; otherwise throws with the refusal message. */
    void check(URI uri) throws Refused {
        var scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https"))
            throw new Refused("Unsupported URL scheme: " + (scheme.isEmpty() ? "(none)" : scheme));
        var host = host(uri);
        if (host.isEmpty()) throw new Refused("Invalid URL (no host): " + uri);
        for (var pattern : blockedHosts)
            if (pattern.matcher(host).matches()) throw new Refused("Blocked: host " + host + " is in tools.web.blocked_hosts");
        if (METADATA_NAMES.contains(host)) throw new Refused(BLOCKED);
        InetAddress[] addresses;
        try {
            addresses = resolver.resolve(host);
        } catch (UnknownHostException e) {
            throw new Refused("Could not resolve host: " + host);
        }
        if (addresses.length == 0) throw new Refused("Could not resolve host: " + host);
        for (var address : addresses) {
            var embedded = embeddedIpv4(address);
            if (METADATA_ADDRESSES.contains(address) || (embedded != null && METADATA_ADDRESSES.contains(embedded)))
                throw new Refused(BLOCKED);
            if (!allowPrivate && isInternal(address)) throw new Refused(BLOCKED);
        }
    }

    /** The lower-cased host without IPv6 brackets or a trailing dot; empty when absent. */
    static String host(URI uri) {
        var host = uri.getHost();
        if (host == null) return "";
        host = host.toLowerCase(Locale.ROOT);
        if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
        while (host.endsWith(".")) host = host.substring(0, host.length() - 1);
        return host;
    }

    /** Whether {@code address} is anything but a public unicast address. */
    static boolean isInternal(InetAddress address) {
        if (address.isAnyLocalAddress() || address.isLoopbackAddress() || address.isLinkLocalAddress()
                || address.isSiteLocalAddress() || address.isMulticastAddress())
            return true;
        if (address instanceof Inet4Address v4) return internalV4(v4.getAddress());
        var b = address.getAddress();
        var embedded = embeddedIpv4(address);
        if (embedded != null) return isInternal(embedded);
        if ((b[0] & 0xfe) == 0xfc) return true;                                  // fc00::/7 unique local
        if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && (b[3] & 0xff) == 0xb8) return true; // 2001:db8::/32
        return false;
    }

    private static boolean internalV4(byte[] a) {
        int b0 = a[0] & 0xff, b1 = a[1] & 0xff, b2 = a[2] & 0xff;
        return b0 == 0                                   // 0.0.0.0/8
                || b0 == 10 || b0 == 127                 // private, loopback
                || (b0 == 100 && (b1 & 0xc0) == 64)      // 100.64/10 CGNAT
                || (b0 == 169 && b1 == 254)              // link-local, metadata
                || (b0 == 172 && (b1 & 0xf0) == 16)      // 172.16/12
                || (b0 == 192 && b1 == 168)              // 192.168/16
                || (b0 == 192 && b1 == 0 && (b2 == 0 || b2 == 2)) // IETF protocol assignments, TEST-NET-1
                || (b0 == 198 && (b1 & 0xfe) == 18)      // 198.18/15 benchmarking
                || (b0 == 198 && b1 == 51 && b2 == 100)  // TEST-NET-2
                || (b0 == 203 && b1 == 0 && b2 == 113)   // TEST-NET-3
                || b0 >= 224;                            // multicast, 240/4 reserved, broadcast
    }

    /**
     * The IPv4 address inside an IPv6 address in IPv4-compatible (::/96), IPv4-mapped (::ffff:0:0/96,
     * which the JDK usually turns into an {@link Inet4Address} already), NAT64 (64:ff9b::/96) or 6to4
     * (2002::/16) form; null otherwise.
     */
    static InetAddress embeddedIpv4(InetAddress address) {
        if (!(address instanceof Inet6Address)) return null;
        var b = address.getAddress();
        boolean zero10 = Arrays.equals(b, 0, 10, new byte[10], 0, 10);
        boolean compat = zero10 && b[10] == 0 && b[11] == 0 && !(b[12] == 0 && b[13] == 0 && b[14] == 0);
        boolean mapped = zero10 && b[10] == (byte) 0xff && b[11] == (byte) 0xff;
        boolean nat64 = b[0] == 0 && b[1] == 0x64 && b[2] == (byte) 0xff && b[3] == (byte) 0x9b
                && Arrays.equals(b, 4, 12, new byte[8], 0, 8);
        try {
            if (compat || mapped || nat64) return InetAddress.getByAddress(Arrays.copyOfRange(b, 12, 16));
            if (b[0] == 0x20 && b[1] == 0x02) return InetAddress.getByAddress(Arrays.copyOfRange(b, 2, 6));
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // four bytes are always a valid address
        }
        return null;
    }

    private static Pattern glob(String glob) {
        var regex = new StringBuilder();
        for (char c : glob.strip().toLowerCase(Locale.ROOT).toCharArray()) {
            switch (c) {
                case '*' -> regex.append(".*");
                case '?' -> regex.append('.');
                default -> regex.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(regex.toString());
    }

    private static InetAddress literal(String ip) {
        try {
            return InetAddress.getByName(ip); // a literal: no lookup
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
