package dev.caduceus.platform.host.store;

/**
 * A migration script was refused or failed: a changed checksum, a bad file name, a script out of
 * order, or a script touching a schema object owned by another owner. The message names the owner,
 * the version and where the script came from. Nothing of the refused script was applied.
 */
public final class MigrationException extends RuntimeException {
    public MigrationException(String message) {
        super(message);
    }

    public MigrationException(String message, Throwable cause) {
        super(message, cause);
    }
}
