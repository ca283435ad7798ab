/**
 * The Hermes toolsets as data: a bundled {@code toolsets.json} read once into
 * {@link dev.caduceus.spi.tool.ToolsetSpec}s. Start at
 * {@link dev.caduceus.plugin.toolsets.ToolsetsPlugin}. Threading: everything is read on the boot
 * thread and immutable afterwards.
 */
package dev.caduceus.plugin.toolsets;
