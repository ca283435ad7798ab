/**
 * Configuration: YAML file, environment and flags merged over built-in defaults, validated against
 * one schema, with the source of every value kept for error messages. Start at {@link
 * dev.caduceus.platform.host.config.ConfigLoader}; plugins see {@link
 * dev.caduceus.platform.host.config.PluginConfigImpl}. Threading: built once at boot, immutable after.
 */
package dev.caduceus.platform.host.config;
