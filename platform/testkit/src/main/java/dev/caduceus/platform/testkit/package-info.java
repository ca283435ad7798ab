/**
 * Support for plugin tests. Start at {@link dev.caduceus.platform.testkit.TestHost}: the real host in-process
 * (PF4J loading the plugin jars, the run service, journal and SQLite, Jetty on loopback), driven over
 * HTTP with {@link dev.caduceus.platform.testkit.HostClient} and {@link dev.caduceus.platform.testkit.SseStream}, the model
 * played by {@link dev.caduceus.platform.testkit.ScriptedUpstream} (a real HTTP server; gate a request with
 * {@link dev.caduceus.platform.testkit.HeldTurn}, poll with {@link dev.caduceus.platform.testkit.Eventually}); a plugin's
 * tools are called through the host's dispatcher with {@code TestHost.callTool}. For unit tests
 * of a single class there are fakes: a host context ({@link dev.caduceus.platform.testkit.FakePlatformContext},
 * on its way out), an HTTP exchange that records the answer, an event stream that records frames, and
 * checks for plugin jars. There is no fake of the run service: runs are tested on
 * the host.
 * Threading: fakes are thread-safe where the real type is.
 */
package dev.caduceus.platform.testkit;
