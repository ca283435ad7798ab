/**
 * The {@code relay} agent runtime (proxy mode): each agent turn runs on a remote
 * Hermes-compatible server, and what it streams back becomes run events. Turns with an approval
 * channel (runs, job runs) run on the remote's runs API ({@code /v1/runs}, with approvals and stop
 * carried across); the others, and every turn when the remote has no runs API, are one streaming
 * {@code /v1/chat/completions}. Start at {@link dev.caduceus.plugin.relay.RelayRuntime}. Threading:
 * the runtime is shared by all run threads; each turn's parsing state lives on the run's own thread.
 */
package dev.caduceus.plugin.relay;
