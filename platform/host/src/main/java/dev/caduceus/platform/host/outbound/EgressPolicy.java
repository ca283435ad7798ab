package dev.caduceus.platform.host.outbound;

import dev.caduceus.spi.outbound.OutboundHttp.Egress.Reach;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Where an outbound request may go, chosen by the caller: {@link #any()} for targets the operator
 * configured (the model upstream, a relay's remote), {@link #publicOnly} for targets the agent names
 * (a URL to fetch). Public-only refuses every address that is not public unicast — loopback, private,
 * link-local (cloud metadata), carrier-grade NAT, unspecified, multicast, reserved, benchmarking and
 * documentation ranges, also when written inside an IPv6 address (IPv4-mapped, IPv4-compatible,
 * NAT64, 6to4) — and the hosts named in {@code blockedHosts} ({@code *} and {@code ?} globs, case-insensitive),
 * and always the metadata names. {@link #privateAllowed} lifts the address rule for a deployment
 * that lets agent-named targets reach its own network, but still refuses the cloud metadata names and
 * addresses ({@code 169.254.169.254}, {@code fd00:ec2::254}, in any IPv6 form) and the blocked hosts.
 * The check is made on the addresses a connection will actually use ({@link GuardedResolver}), so a
 * name that resolves differently a second time gains nothing. Immutable; thread-safe.
 */
public final class EgressPolicy {
    private static final Set<String> METADATA_NAMES = Set.of("metadata.google.internal", "metadata");
    private static final List<InetAddress> METADATA_ADDRESSES = List.of(literal("169.254.169.254"),
            literal("fd00:ec2::254"));
    private static final EgressPolicy ANY = new EgressPolicy(Reach.ANY, List.of(), Set.of());
    /** What C resolvers (inet_aton) read as an IPv4 address: one to four decimal, octal or hex parts. */
    private static final Pattern NUMERIC = Pattern.compile("(0x[0-9a-f]*|\\d+)(\\.(0x[0-9a-f]*|\\d+)){0,3}");
    private static final Pattern DOTTED_QUAD =
            Pattern.compile("(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");

    private final Reach reach;
    private final List<Pattern> blockedHosts;
    private final Set<InetAddress> treatedAsPublic;

    private EgressPolicy(Reach reach, List<Pattern> blockedHosts, Set<InetAddress> treatedAsPublic) {
        this.reach = reach;
        this.blockedHosts = List.copyOf(blockedHosts);
        this.treatedAsPublic = Set.copyOf(treatedAsPublic);
    }

    /** No restriction. */
    public static EgressPolicy any() {
        return ANY;
    }

    /** Public unicast addresses only, and none of {@code blockedHostGlobs}. */
    public static EgressPolicy publicOnly(List<String> blockedHostGlobs) {
        return new EgressPolicy(Reach.PUBLIC_ONLY, globs(blockedHostGlobs), Set.of());
    }

    /** Internal addresses allowed, but no cloud metadata name or address and none of {@code blockedHostGlobs}. */
    public static EgressPolicy privateAllowed(List<String> blockedHostGlobs) {
        return new EgressPolicy(Reach.PRIVATE_ALLOWED, globs(blockedHostGlobs), Set.of());
    }

    /**
     * For tests only (package-private, reached through {@code OutboundClient}'s test constructor): this
     * policy with {@code addresses} counted as public. Tests have nothing but loopback to connect to,
     * so to see public-only at work they declare one loopback address (127.0.0.2) public and keep
     * the rest (127.0.0.1) internal.
     */
    EgressPolicy treatingAsPublic(Set<InetAddress> addresses) {
        return new EgressPolicy(reach, blockedHosts, addresses);
    }

    /** The policy an SPI {@link dev.caduceus.spi.outbound.OutboundHttp.Egress} names. */
    public static EgressPolicy of(dev.caduceus.spi.outbound.OutboundHttp.Egress egress) {
        return switch (egress.reach()) {
            case ANY -> any();
            case PUBLIC_ONLY -> publicOnly(egress.blockedHosts());
            case PRIVATE_ALLOWED -> privateAllowed(egress.blockedHosts());
        };
    }

    /** Whether this policy restricts anything. */
    public boolean restricts() {
        return reach != Reach.ANY;
    }

    /**
     * Why {@code host} (a name or a literal, lower or upper case) is refused before any lookup, or
     * empty. Besides the blocked and metadata names, this refuses what a proxy would resolve to an
     * internal address without our lookup ever seeing it (through a proxy only the name is checked):
     * the loopback names ({@code localhost}, {@code *.localhost}, RFC 6761) and IPv4 addresses
     * written in any form but the dotted quad ({@code 0x7f000001}, {@code 0177.0.0.1},
     * {@code 2130706433}, {@code 127.1}), which C resolvers accept and Java reads differently or not
     * at all.
     */
    public Optional<String> refuseName(String host) {
        if (!restricts()) return Optional.empty();
        var name = normalize(host);
        for (var pattern : blockedHosts)
            if (pattern.matcher(name).matches()) return Optional.of("host " + name + " is blocked by configuration");
        if (METADATA_NAMES.contains(name)) return Optional.of("host " + name + " is a cloud metadata service");
        if (name.equals("localhost") || name.endsWith(".localhost"))
            return Optional.of("host " + name + " is a loopback name");
        if (NUMERIC.matcher(name).matches() && !DOTTED_QUAD.matcher(name).matches())
            return Optional.of("host " + name + " is an address written in a non-standard form");
        return Optional.empty();
    }

    /** Whether a connection to {@code address} is allowed. */
    public boolean allows(InetAddress address) {
        return switch (reach) {
            case ANY -> true;
            case PUBLIC_ONLY -> treatedAsPublic.contains(address) || !isInternal(address);
            case PRIVATE_ALLOWED -> !isMetadata(address);
        };
    }

    /** What a refused address is, for the refusal's message. */
    String refusedKind() {
        return reach == Reach.PRIVATE_ALLOWED ? "cloud metadata" : "private or internal network";
    }

    /** Whether {@code address} is a cloud metadata service's, also written inside an IPv6 address. */
    public static boolean isMetadata(InetAddress address) {
        var embedded = embeddedIpv4(address);
        return METADATA_ADDRESSES.contains(address) || embedded != null && METADATA_ADDRESSES.contains(embedded);
    }

    /** Whether {@code address} is anything but a public unicast address. */
    public static boolean isInternal(InetAddress address) {
        if (address.isAnyLocalAddress() || address.isLoopbackAddress() || address.isLinkLocalAddress()
                || address.isSiteLocalAddress() || address.isMulticastAddress())
            return true;
        if (address instanceof Inet4Address v4) return internalV4(v4.getAddress());
        var embedded = embeddedIpv4(address);
        if (embedded != null) return isInternal(embedded);
        var b = address.getAddress();
        if ((b[0] & 0xfe) == 0xfc) return true;                                   // fc00::/7, unique local
        return b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && (b[3] & 0xff) == 0xb8; // 2001:db8::/32, documentation
    }

    private static boolean internalV4(byte[] a) {
        int b0 = a[0] & 0xff, b1 = a[1] & 0xff, b2 = a[2] & 0xff;
        return b0 == 0 || b0 == 10 || b0 == 127                      // "this network", private, loopback
                || (b0 == 100 && (b1 & 0xc0) == 64)                 // 100.64.0.0/10, carrier-grade NAT
                || (b0 == 169 && b1 == 254)                          // link-local, where metadata services live
                || (b0 == 172 && (b1 & 0xf0) == 16)                  // 172.16.0.0/12
                || (b0 == 192 && b1 == 168)                          // 192.168.0.0/16
                || (b0 == 192 && b1 == 0 && (b2 == 0 || b2 == 2))    // protocol assignments, documentation
                || (b0 == 198 && (b1 & 0xfe) == 18)                  // 198.18.0.0/15, benchmarking
                || (b0 == 198 && b1 == 51 && b2 == 100)              // documentation
                || (b0 == 203 && b1 == 0 && b2 == 113)               // documentation
                || b0 >= 224;                                        // multicast, reserved, broadcast
    }

    /** The IPv4 address an IPv6 address carries (compatible, mapped, NAT64, 6to4), or null. */
    static InetAddress embeddedIpv4(InetAddress address) {
        if (!(address instanceof Inet6Address)) return null;
        var b = address.getAddress();
        boolean zero10 = Arrays.equals(b, 0, 10, new byte[10], 0, 10);
        boolean compatible = zero10 && b[10] == 0 && b[11] == 0 && !(b[12] == 0 && b[13] == 0 && b[14] == 0);
        boolean mapped = zero10 && b[10] == (byte) 0xff && b[11] == (byte) 0xff;
        boolean nat64 = b[0] == 0 && b[1] == 0x64 && b[2] == (byte) 0xff && b[3] == (byte) 0x9b
                && Arrays.equals(b, 4, 12, new byte[8], 0, 8);
        try {
            if (compatible || mapped || nat64) return InetAddress.getByAddress(Arrays.copyOfRange(b, 12, 16));
            if (b[0] == 0x20 && b[1] == 0x02) return InetAddress.getByAddress(Arrays.copyOfRange(b, 2, 6));
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // four bytes are always an address
        }
        return null;
    }

    static String normalize(String host) {
        var name = host.toLowerCase(Locale.ROOT);
        if (name.startsWith("[") && name.endsWith("]")) name = name.substring(1, name.length() - 1);
        while (name.endsWith(".")) name = name.substring(0, name.length() - 1);
        return name;
    }

    private static List<Pattern> globs(List<String> globs) {
        return globs.stream().map(String::strip).filter(g -> !g.isEmpty()).map(EgressPolicy::glob).toList();
    }

    private static InetAddress literal(String text) {
        try {
            return InetAddress.getByName(text); // a literal: parsed, never looked up
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Pattern glob(String glob) {
        var regex = new StringBuilder();
        for (var c : glob.toLowerCase(Locale.ROOT).toCharArray())
            regex.append(c == '*' ? ".*" : c == '?' ? "." : Pattern.quote(String.valueOf(c)));
        return Pattern.compile(regex.toString());
    }

    @Override
    public String toString() {
        return reach == Reach.ANY ? "EgressPolicy[any]"
                : "EgressPolicy[" + reach.name().toLowerCase(Locale.ROOT).replace('_', '-') + ", " + blockedHosts.size()
                        + " blocked hosts]";
    }
}
