package dev.caduceus.platform.host.auth;

/** The configured key is unusable; the message names its source and never contains the key. */
public final class ApiKeyException extends RuntimeException {
    public ApiKeyException(String message) {
        super(message);
    }
}
