/**
 * Configuration as plugins see it: their own subtree ({@link PluginConfig}) and the documented
 * globals ({@link GlobalConfig}). Threading: immutable after boot, thread-safe.
 */
package dev.caduceus.spi.config;
