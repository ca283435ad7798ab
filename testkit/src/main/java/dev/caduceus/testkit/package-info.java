/**
 * Test doubles for plugin unit tests: a fake host context, a fake HTTP exchange that records the
 * answer, an event stream that records frames, a scripted run service ({@link dev.caduceus.testkit.ScriptedRuns}),
 * fake session transcripts, a scripted OpenAI-compatible upstream
 * ({@link dev.caduceus.testkit.ScriptedUpstream}, a real HTTP server), and checks for plugin jars. Start at
 * {@link dev.caduceus.testkit.FakePlatformContext}. Threading: fakes are thread-safe where the real
 * type is.
 */
package dev.caduceus.testkit;
