/**
 * The plugin entry point and the host services a plugin receives. Start at {@link PlatformPlugin},
 * then {@link PlatformContext}. Threading: lifecycle and contribution calls happen on the single
 * boot thread; services handed out by the context are thread-safe unless stated otherwise.
 */
package dev.caduceus.spi;
