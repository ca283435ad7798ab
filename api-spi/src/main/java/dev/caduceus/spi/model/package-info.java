/**
 * Upstream model providers: a {@link ModelProvider} streams {@link ModelEvent}s for a
 * {@link ModelRequest}. Threading: a provider is called concurrently from run threads and delivers
 * each call's events on the calling thread.
 */
package dev.caduceus.spi.model;
