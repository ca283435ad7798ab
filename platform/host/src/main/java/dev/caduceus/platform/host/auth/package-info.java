/**
 * The API key: where it comes from (environment, config, key file, or generated at first start),
 * how it is validated, and how the key file stores it (a salted hash, {@link dev.caduceus.platform.host.auth.KeyHash};
 * clear-text files of earlier versions are migrated). Start at {@link ApiKeys}.
 * Threading: resolved on the boot thread; {@link ApiKey#matches} is called from any request thread.
 */
package dev.caduceus.platform.host.auth;
