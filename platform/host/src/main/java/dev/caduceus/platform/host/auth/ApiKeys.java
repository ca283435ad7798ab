package dev.caduceus.platform.host.auth;

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
 * {@code server.api_key}) → the key file {@code $CADUCEUS_HOME/api_key} → a newly generated key.
 * Configured keys are validated: at least 16 characters and not a placeholder ({@code changeme}, {@code <…>}, one repeated character, …).
 *
 * <p>The key file holds the key's salted hash, one line {@code sha256:<salt-hex>:<hash-hex>}
 * ({@link KeyHash}), written atomically with mode 0600; the clear key is shown once, when it is
 * generated. A key file that holds a clear-text key (anything not starting with {@code sha256:},
 * as earlier versions wrote) is replaced by its hash the first time it is read, and that key keeps
 * working.
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
        this.keyFile = keyFileIn(home);
        this.random = random;
    }

    /** The key file of the state directory {@code home}: {@code home/api_key}. */
    public static Path keyFileIn(Path home) {
        return home.resolve("api_key");
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
            return new ApiKey.Configured(configured.get().strip(), sourceName);
        }
        return read().<ApiKey>map(k -> k).orElseGet(this::generate);
    }

    /**
     * The key stored in the key file, if there is one. A clear-text key is first replaced in the file
     * by its hash.
     *
     * @throws ApiKeyException when the file holds a malformed hash or an unusable clear-text key
     */
    public Optional<ApiKey.Stored> read() {
        if (!Files.exists(keyFile)) return Optional.empty();
        String content;
        try {
            content = Files.readString(keyFile, StandardCharsets.UTF_8).strip();
            if (KeyHash.isHash(content)) warnIfShared();                      // a migrated file is 0600
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the API key file " + keyFile, e);
        }
        if (KeyHash.isHash(content)) {
            try {
                return Optional.of(new ApiKey.Stored(KeyHash.parse(content), keyFile));
            } catch (IllegalArgumentException e) {
                throw new ApiKeyException("The API key file " + keyFile + " is not a valid key hash ("
                        + e.getMessage() + "). Run 'caduceus key rotate' for a new key, or set API_SERVER_KEY.");
            }
        }
        validate(content, keyFile.toString());
        var hash = KeyHash.of(content, random);
        write(hash);
        LOG.info("Replaced the clear-text API key in {} by its salted hash; the same key keeps working", keyFile);
        return Optional.of(new ApiKey.Stored(hash, keyFile));
    }

    /**
     * Makes a new random key (32 bytes as 64 lowercase hex), writes its hash to the key file, replacing
     * any old one, and returns it with its clear value, which nothing else keeps.
     */
    public ApiKey.Generated generate() {
        var bytes = new byte[32];
        random.nextBytes(bytes);
        var value = HexFormat.of().formatHex(bytes);
        var hash = KeyHash.of(value, random);
        write(hash);
        return new ApiKey.Generated(value, new ApiKey.Stored(hash, keyFile));
    }

    /** Writes {@code hash} to the key file: a new 0600 file moved over the old one atomically. */
    private void write(KeyHash hash) {
        try {
            Files.createDirectories(keyFile.getParent());
            var tmp = keyFile.resolveSibling("api_key.tmp");
            Files.deleteIfExists(tmp);
            if (supportsPosix()) {
                Files.createFile(tmp, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            } else {
                Files.createFile(tmp);
            }
            Files.writeString(tmp, hash.format() + "\n", StandardCharsets.UTF_8);
            try {
                Files.move(tmp, keyFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, keyFile, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the API key file " + keyFile, e);
        }
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
