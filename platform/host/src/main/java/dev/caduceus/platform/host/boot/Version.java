package dev.caduceus.platform.host.boot;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Properties;

/** The Caduceus version, read from the build-filtered {@code version.properties}. */
public final class Version {
    public static final String CURRENT = load();

    /**
     * The version checked against a plugin's {@code Plugin-Requires}: {@link #CURRENT} without its
     * pre-release part, so a 0.1.0-SNAPSHOT build satisfies {@code >=0.1.0} (PF4J's expression
     * parser accepts no pre-release bounds).
     */
    public static final String COMPATIBILITY = CURRENT.replaceFirst("[-+].*$", "");

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
