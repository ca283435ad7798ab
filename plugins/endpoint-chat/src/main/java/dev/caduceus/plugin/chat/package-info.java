/**
 * {@code POST /v1/chat/completions}: validates the OpenAI request, builds one
 * {@link dev.caduceus.spi.agent.RunRequest}, and translates the run into a {@code chat.completion} or
 * a chunk stream with tool-progress notices. Start at {@link dev.caduceus.plugin.chat.ChatPlugin},
 * then {@code ChatHandler}. Threading: one virtual thread per request; the idempotency cache is the
 * only shared state.
 */
package dev.caduceus.plugin.chat;
