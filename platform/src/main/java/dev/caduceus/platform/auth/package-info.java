/**
 * The API key: where it comes from (environment, config, key file, or generated at first start),
 * how it is validated, and the {@code caduceus key} commands. Start at {@link ApiKeys}.
 * Threading: used on the boot thread only.
 */
package dev.caduceus.platform.auth;
