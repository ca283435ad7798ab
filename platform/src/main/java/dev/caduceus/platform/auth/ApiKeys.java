package dev.caduceus.platform.auth;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the API key, first match: a configured key (env {@code API_SERVER_KEY} or config
 * {@code server.api_key}) → the key file {@code $CADUCEUS_HOME/api_key} → a newly generated key
 * written to that file (mode 0600, atomically). Configured keys are validated: at least 16
 * characters and not a placeholder (contract §4).
 */
public final class ApiKeys {
    private static final Logger LOG = LoggerFactory.getLogger(ApiKeys.class);
    private static final int MIN_LENGTH = 16;
    private static final Set<String> PLACEHOLDERS = Set.of("changeme", "yourapikey", "yourapikeyhere", "apikey",
            "placeholder", "example", "examplekey", "dummy", "dummykey", "secret", "password", "test", "testkey",
            "replaceme", "insertkeyhere", "null", "none");
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private final Path keyFile;
    private final SecureRandom random;

    public ApiKeys(Path home, SecureRandom random) {
        this.keyFile = home.resolve("api_key");
        this.random = random;
    }

    /** The key file, {@code $CADUCEUS_HOME/api_key}. */
    public Path keyFile() {
        return keyFile;
    }

    /**
     * Resolves the key in force.
     *
     * @param configured the configured value, if any
     * @param sourceName how to name where it came from ({@code API_SERVER_KEY} or {@code server.api_key in FILE})
     */
    public ApiKey resolve(Optional<String> configured, String sourceName) {
        if (configured.isPresent()) {
            validate(configured.get(), sourceName);
            return new ApiKey(configured.get().strip(), ApiKey.Origin.CONFIGURED, sourceName, null);
        }
        return read().orElseGet(this::generate);
    }

    /** The key stored in the key file, if there is one. */
    public Optional<ApiKey> read() {
        if (!Files.exists(keyFile)) return Optional.empty();
        try {
            var value = Files.readString(keyFile, StandardCharsets.UTF_8).strip();
            validate(value, keyFile.toString());
            warnIfShared();
            return Optional.of(new ApiKey(value, ApiKey.Origin.FILE, keyFile.toString(), keyFile));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the API key file " + keyFile, e);
        }
    }

    /** Writes a new random key to the key file, replacing any old one, and returns it. */
    public ApiKey generate() {
        var bytes = new byte[32];
        random.nextBytes(bytes);
        var value = HexFormat.of().formatHex(bytes);
        try {
            Files.createDirectories(keyFile.getParent());
            var tmp = keyFile.resolveSibling("api_key.tmp");
            Files.deleteIfExists(tmp);
            if (supportsPosix()) {
                Files.createFile(tmp, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            } else {
                Files.createFile(tmp);
            }
            Files.writeString(tmp, value + "\n", StandardCharsets.UTF_8);
            try {
                Files.move(tmp, keyFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, keyFile, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the API key file " + keyFile, e);
        }
        return new ApiKey(value, ApiKey.Origin.GENERATED, keyFile.toString(), keyFile);
    }

    /** Throws {@link ApiKeyException} when {@code key} is too short or a placeholder. */
    static void validate(String key, String sourceName) {
        var raw = key.strip();
        if (isPlaceholder(key)) {
            throw new ApiKeyException(sourceName + " is a placeholder value. Set a real key of at least "
                    + MIN_LENGTH + " characters, or unset it and Caduceus will generate one.");
        }
        if (raw.length() < MIN_LENGTH) {
            throw new ApiKeyException(sourceName + " is too short (" + raw.length() + " characters). Use at least "
                    + MIN_LENGTH + ", or unset it and Caduceus will generate one.");
        }
    }

    static boolean isPlaceholder(String key) {
        var raw = key.strip();
        if (raw.startsWith("<") && raw.endsWith(">")) return true;
        var folded = raw.toLowerCase(Locale.ROOT).replaceAll("[-_. ]", "");
        if (PLACEHOLDERS.contains(folded)) return true;
        return !folded.isEmpty() && folded.chars().distinct().count() == 1;
    }

    private void warnIfShared() throws IOException {
        if (!supportsPosix()) return;
        var permissions = Files.getPosixFilePermissions(keyFile);
        if (!OWNER_ONLY.containsAll(permissions)) {
            LOG.warn("The API key file {} is readable by others ({}); run: chmod 600 {}", keyFile,
                    PosixFilePermissions.toString(permissions), keyFile);
        }
    }

    private boolean supportsPosix() {
        return keyFile.getFileSystem().supportedFileAttributeViews().contains("posix");
    }
}
