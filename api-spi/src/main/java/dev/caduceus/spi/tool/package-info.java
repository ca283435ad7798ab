/**
 * Tools the agent can call and the toolsets that group them. Start at {@link Tool} and {@link ToolSpec}. Threading: tools are called
 * concurrently; specs are immutable data.
 */
package dev.caduceus.spi.tool;
