/**
 * The one logging backend: logback, configured in code (no XML), with java.util.logging and
 * {@code System.Logger} (which plugins use) bridged into it, so every line on stderr has one format and
 * obeys one set of levels. Start at {@link dev.caduceus.platform.host.logging.LogSetup}; the formats are
 * {@link dev.caduceus.platform.host.logging.TextLayout} and {@link dev.caduceus.platform.host.logging.JsonLayout}.
 * Threading: the layouts are called from any thread at once; {@code LogSetup} may be applied again at any
 * time (at start from the environment, then from the configuration).
 */
package dev.caduceus.platform.host.logging;
