package dev.caduceus.platform.host.store;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Where a PostgreSQL database is and who logs in: parsed from {@code database.url}, which takes the
 * libpq form {@code postgresql://user:pass@host:port/db?sslmode=require} (also {@code postgres://}) or a
 * JDBC URL {@code jdbc:postgresql://host:port/db?...}. A user or password given on its own key wins over
 * the URL's. {@link #toString()} and {@link #redacted()} never show the password.
 *
 * @param jdbcUrl   {@code jdbc:postgresql://host:port/db} with the query parameters, no credentials
 * @param user      the role, or empty to let the driver choose
 * @param password  the password, or empty
 */
public record PostgresTarget(String jdbcUrl, Optional<String> user, Optional<String> password) {

    /** A URL that is not a PostgreSQL URL, or is malformed; the message says which and why. */
    public static final class BadUrl extends IllegalArgumentException {
        public BadUrl(String message) {
            super(message);
        }
    }

    /**
     * Parses {@code url}; {@code user} and {@code password}, when present, replace the URL's.
     *
     * @throws BadUrl with a message naming what is wrong (never the password)
     */
    public static PostgresTarget parse(String url, Optional<String> user, Optional<String> password) {
        if (url == null || url.isBlank()) throw new BadUrl("the database URL is empty");
        String text = url.strip();
        String rest;
        if (text.startsWith("jdbc:postgresql://")) rest = text.substring("jdbc:postgresql://".length());
        else if (text.startsWith("postgresql://")) rest = text.substring("postgresql://".length());
        else if (text.startsWith("postgres://")) rest = text.substring("postgres://".length());
        else throw new BadUrl("expected postgresql://user:password@host:port/database or jdbc:postgresql://host:port/database, got "
                    + redact(text));
        URI uri;
        try {
            uri = new URI("postgresql://" + rest);
        } catch (URISyntaxException e) {
            throw new BadUrl("malformed database URL " + redact(text) + ": " + e.getReason());
        }
        String host = uri.getHost();
        if (host == null || host.isBlank()) throw new BadUrl("the database URL " + redact(text) + " names no host");
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        if (path.length() <= 1) throw new BadUrl("the database URL " + redact(text) + " names no database (…/DATABASE)");
        String database = decode(path.substring(1));
        if (database.contains("/")) throw new BadUrl("the database URL " + redact(text) + " has more than one path segment");
        Map<String, String> query = new LinkedHashMap<>();
        if (uri.getRawQuery() != null) {
            for (String pair : uri.getRawQuery().split("&")) {
                if (pair.isEmpty()) continue;
                int eq = pair.indexOf('=');
                String key = decode(eq < 0 ? pair : pair.substring(0, eq));
                String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
                query.put(key, value);
            }
        }
        Optional<String> urlUser = Optional.ofNullable(query.remove("user"));
        Optional<String> urlPassword = Optional.ofNullable(query.remove("password"));
        if (uri.getRawUserInfo() != null) {
            String info = uri.getRawUserInfo();
            int colon = info.indexOf(':');
            urlUser = Optional.of(decode(colon < 0 ? info : info.substring(0, colon)));
            if (colon >= 0) urlPassword = Optional.of(decode(info.substring(colon + 1)));
        }
        var jdbc = new StringBuilder("jdbc:postgresql://").append(host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host);
        if (uri.getPort() > 0) jdbc.append(':').append(uri.getPort());
        jdbc.append('/').append(java.net.URLEncoder.encode(database, StandardCharsets.UTF_8).replace("+", "%20"));
        if (!query.isEmpty()) {
            var joiner = new java.util.StringJoiner("&", "?", "");
            query.forEach((k, v) -> joiner.add(enc(k) + "=" + enc(v)));
            jdbc.append(joiner);
        }
        Optional<String> fromUrlUser = urlUser.filter(s -> !s.isBlank());
        Optional<String> fromUrlPassword = urlPassword;
        return new PostgresTarget(jdbc.toString(), user.filter(s -> !s.isBlank()).or(() -> fromUrlUser),
                password.or(() -> fromUrlPassword));
    }

    /** The URL as shown to people: the JDBC URL and the user, never the password. */
    public String redacted() {
        return user.map(u -> jdbcUrl.replaceFirst("^jdbc:postgresql://", "jdbc:postgresql://" + u + "@")).orElse(jdbcUrl);
    }

    @Override
    public String toString() {
        return redacted();
    }

    /** {@code text} with the password of its user-info (or a {@code password=} parameter) replaced by {@code ***}. */
    public static String redact(String text) {
        return text.replaceAll("(://[^:/@?#]*:)[^@/?#]*@", "$1***@").replaceAll("(?i)([?&]password=)[^&]*", "$1***");
    }

    private static String decode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    private static String enc(String s) {
        return java.net.URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
