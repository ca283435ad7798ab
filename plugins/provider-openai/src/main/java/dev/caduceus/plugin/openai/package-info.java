/**
 * The {@code openai} model provider: OpenAI-compatible chat completions (OpenAI, OpenRouter, vLLM,
 * llama.cpp, Ollama, LM Studio) through the host's outbound HTTP client ({@code PlatformContext.outbound()}), streamed or not. Start at
 * {@link dev.caduceus.plugin.openai.OpenAiProvider}. Threading: the provider is shared by all run
 * threads; each call's parsing state ({@code CallEvents}) lives on the calling thread only.
 */
package dev.caduceus.plugin.openai;
