/**
 * The conversation as agents and models share it: {@link dev.caduceus.spi.message.Message}s made of
 * {@link dev.caduceus.spi.message.ContentPart}s, and token {@link dev.caduceus.spi.message.Usage}.
 * Depends on nothing else in the SPI, so both {@code agent} and {@code model} use it.
 */
package dev.caduceus.spi.message;
