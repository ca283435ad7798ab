/**
 * Tools the agent can call, the toolsets that group them and the distributions that sample
 * toolsets for batch runs. Start at {@link Tool} and {@link ToolSpec}. Threading: tools are called
 * concurrently; specs are immutable data.
 */
package dev.caduceus.spi.tool;
