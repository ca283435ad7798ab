/**
 * The {@code relay} agent runtime (proxy mode, contract §15): each agent turn is sent to a remote
 * Hermes-compatible server's streaming {@code /v1/chat/completions} and its frames become run events.
 * Start at {@link dev.caduceus.plugin.relay.RelayRuntime}. Threading: the runtime is shared by all run
 * threads; each turn's parsing state lives on the run's own thread.
 */
package dev.caduceus.plugin.relay;
