/**
 * Support for plugin tests. Start at {@link dev.caduceus.platform.testkit.TestHost}: the real host in-process
 * (PF4J loading the plugin jars, the run service, journal and SQLite, Jetty on loopback), driven over
 * HTTP with {@link dev.caduceus.platform.testkit.HostClient} and {@link dev.caduceus.platform.testkit.SseStream}, the model
 * played by {@link dev.caduceus.platform.testkit.ScriptedUpstream} (a real HTTP server; gate a request with
 * {@link dev.caduceus.platform.testkit.HeldTurn}, poll with {@link dev.caduceus.platform.testkit.Eventually}); a plugin's
 * tools are called through the host's dispatcher with {@code TestHost.callTool}, and what they contributed
 * is read where the host keeps it ({@code TestHost.deployment}, {@code services}, {@code pluginListing},
 * {@code configReference}). There is no fake of the host or of its run service: plugins are tested on it.
 * What a single class may be handed are values: an HTTP exchange that records the answer
 * ({@link dev.caduceus.platform.testkit.FakeExchange}), an event stream that records frames, a
 * {@link dev.caduceus.platform.testkit.ManualClock}, small test tools; and checks for plugin jars.
 * Threading: the values are thread-safe where the real type is.
 */
package dev.caduceus.platform.testkit;
