/**
 * The plugin host: scans the plugin folders, decides which jars run, loads them with PF4J behind an
 * SPI-first class loader, starts them in dependency order and freezes what they contribute. Start at
 * {@link dev.caduceus.platform.host.plugin.PluginHost}, then {@link dev.caduceus.platform.host.plugin.Registries}.
 * Threading: loading, starting and stopping happen on the one boot thread (PF4J is not thread-safe);
 * the frozen registries are immutable and shared freely.
 */
package dev.caduceus.platform.host.plugin;
