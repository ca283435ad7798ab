package dev.caduceus.platform.host.outbound;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;

/**
 * The hosts that bypass the proxy, from a {@code NO_PROXY} value: comma- or space-separated entries,
 * case-insensitive. {@code *} alone bypasses every host. A name matches itself and every subdomain
 * ({@code example.com} and {@code .example.com} both match {@code api.example.com} and
 * {@code example.com}); an IP address matches itself; a CIDR block ({@code 10.0.0.0/8},
 * {@code fd00::/8}) matches the addresses in it; {@code host:port} or {@code [v6]:port} matches that
 * port only. Names are compared as written, never resolved (as curl does). Immutable.
 */
public final class NoProxy {
    private sealed interface Rule {
        boolean matches(String host, byte[] address, int port);
    }

    private record Domain(String suffix, OptionalInt port) implements Rule {
        public boolean matches(String host, byte[] address, int port) {
            if (this.port.isPresent() && this.port.getAsInt() != port) return false;
            return host.equals(suffix) || host.endsWith("." + suffix);
        }
    }

    private record Block(byte[] network, int bits, OptionalInt port) implements Rule {
        public boolean matches(String host, byte[] address, int port) {
            if (this.port.isPresent() && this.port.getAsInt() != port) return false;
            if (address == null || address.length != network.length) return false;
            for (int i = 0; i < bits; i++) {
                int mask = 0x80 >>> (i % 8);
                if ((address[i / 8] & mask) != (network[i / 8] & mask)) return false;
            }
            return true;
        }
    }

    private static final NoProxy NONE = new NoProxy(List.of(), false);

    private final List<Rule> rules;
    private final boolean all;

    private NoProxy(List<Rule> rules, boolean all) {
        this.rules = List.copyOf(rules);
        this.all = all;
    }

    /** No bypass at all. */
    public static NoProxy none() {
        return NONE;
    }

    /**
     * Parses {@code value} (null or blank: no bypass). A malformed entry (a CIDR prefix out of range, a
     * port that is not a number) throws {@link IllegalArgumentException} naming it.
     */
    public static NoProxy parse(String value) {
        if (value == null || value.isBlank()) return NONE;
        var rules = new ArrayList<Rule>();
        for (var raw : value.split("[,\\s]+")) {
            var entry = raw.strip().toLowerCase(Locale.ROOT);
            if (entry.isEmpty()) continue;
            if (entry.equals("*")) return new NoProxy(List.of(), true);
            rules.add(rule(entry));
        }
        return new NoProxy(rules, false);
    }

    /** Whether a request to {@code host} (a name or an address literal, IPv6 with or without brackets) on {@code port} bypasses the proxy. */
    public boolean matches(String host, int port) {
        if (all) return true;
        var name = unbracket(host.toLowerCase(Locale.ROOT));
        if (name.endsWith(".")) name = name.substring(0, name.length() - 1);
        var address = literal(name);
        for (var rule : rules) if (rule.matches(name, address, port)) return true;
        return false;
    }

    @Override
    public String toString() {
        return all ? "NoProxy[*]" : "NoProxy" + rules.size() + "rules";
    }

    private static Rule rule(String entry) {
        var port = OptionalInt.empty();
        var host = entry;
        if (entry.startsWith("[")) {                                   // [v6] or [v6]:port
            int close = entry.indexOf(']');
            if (close < 0) throw new IllegalArgumentException("NO_PROXY entry " + entry + ": unclosed '['");
            host = entry.substring(1, close);
            if (close + 1 < entry.length()) port = port(entry, entry.substring(close + 1));
        } else if (entry.indexOf(':') == entry.lastIndexOf(':') && entry.indexOf(':') > 0 && !entry.contains("/")) {
            int colon = entry.indexOf(':');                           // name:port or v4:port (one colon)
            port = port(entry, entry.substring(colon));
            host = entry.substring(0, colon);
        }
        int slash = host.indexOf('/');
        if (slash >= 0) {
            var network = literal(host.substring(0, slash));
            if (network == null) throw new IllegalArgumentException("NO_PROXY entry " + entry + ": not an address before '/'");
            int bits;
            try {
                bits = Integer.parseInt(host.substring(slash + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("NO_PROXY entry " + entry + ": the prefix length is not a number");
            }
            if (bits < 0 || bits > network.length * 8)
                throw new IllegalArgumentException("NO_PROXY entry " + entry + ": the prefix length is out of range");
            return new Block(network, bits, port);
        }
        var address = literal(host);
        if (address != null) return new Block(address, address.length * 8, port);
        if (host.startsWith("*.")) host = host.substring(2);
        if (host.startsWith(".")) host = host.substring(1);
        if (host.endsWith(".")) host = host.substring(0, host.length() - 1);
        return new Domain(host, port);
    }

    private static OptionalInt port(String entry, String colonPort) {
        if (!colonPort.startsWith(":")) throw new IllegalArgumentException("NO_PROXY entry " + entry + ": unexpected text after the host");
        try {
            int port = Integer.parseInt(colonPort.substring(1));
            if (port < 1 || port > 65535) throw new NumberFormatException();
            return OptionalInt.of(port);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("NO_PROXY entry " + entry + ": the port is not 1-65535");
        }
    }

    private static String unbracket(String host) {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    /** The bytes of an IPv4 or IPv6 literal, or null for a name (never a DNS lookup). */
    private static byte[] literal(String text) {
        boolean v4 = text.matches("\\d{1,3}(\\.\\d{1,3}){3}");
        boolean v6 = text.contains(":") && text.matches("[0-9a-f:.]+");
        if (!v4 && !v6) return null;
        if (v4) for (var octet : text.split("\\.")) if (Integer.parseInt(octet) > 255) return null;
        try {
            return InetAddress.getByName(text).getAddress(); // a literal: parsed, not resolved
        } catch (UnknownHostException e) {
            return null;
        }
    }
}
