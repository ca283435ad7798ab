package dev.caduceus.platform;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Properties;

/** The Caduceus version, read from the build-filtered {@code version.properties}. */
public final class Version {
    public static final String CURRENT = load();

    private Version() {}

    private static String load() {
        try (var in = Version.class.getResourceAsStream("version.properties")) {
            if (in == null) return "0.0.0";
            var props = new Properties();
            props.load(in);
            return props.getProperty("version", "0.0.0");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
