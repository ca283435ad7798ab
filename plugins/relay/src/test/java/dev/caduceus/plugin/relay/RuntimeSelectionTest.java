package dev.caduceus.plugin.relay;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.testkit.TestHost;
import org.junit.jupiter.api.Test;

/**
 * How the host picks the agent runtime with this plugin loaded, on the real host: {@code agent.runtime: auto}
 * takes the relay exactly when {@code gateway.proxy_url} is set (the runtime says it is configured), an
 * explicit id selects it, and the settings that cannot be met stop the boot with a line naming the key.
 * The host itself knows no runtime by name: these tests are the relay's side of that contract.
 */
class RuntimeSelectionTest {
    /** Nothing listens on the discard port; selecting a runtime does not call the remote. */
    static final String REMOTE = "http://127.0.0.1:9";

    private static String runtimeLine(TestHost host) {
        return host.output().lines().filter(l -> l.strip().startsWith("runtime:")).findFirst().orElseThrow(() -> new AssertionError(host.output()));
    }

    @Test
    void autoRelaysEveryTurnWhenTheProxyUrlIsSet() {
        try (var host = TestHost.builder().plugins("relay").env("GATEWAY_PROXY_URL", REMOTE).start()) {
            assertTrue(runtimeLine(host).contains("runtime:  relay"), runtimeLine(host));
        }
    }

    @Test
    void autoRunsTurnsLocallyWhenTheProxyUrlIsUnset() {
        try (var host = TestHost.builder().plugins("relay").start()) {
            assertTrue(runtimeLine(host).contains("runtime:  local"), runtimeLine(host));
        }
    }

    @Test
    void localKeepsTurnsHereEvenWithAProxyUrl() {
        try (var host = TestHost.builder().plugins("relay").env("GATEWAY_PROXY_URL", REMOTE)
                .env("CADUCEUS__AGENT__RUNTIME", "local").start()) {
            assertTrue(runtimeLine(host).contains("runtime:  local"), runtimeLine(host));
        }
    }

    @Test
    void anExplicitIdSelectsTheRuntime() {
        try (var host = TestHost.builder().plugins("relay").env("CADUCEUS__AGENT__RUNTIME", "relay").start()) {
            assertTrue(runtimeLine(host).contains("runtime:  relay"), runtimeLine(host));
        }
    }

    @Test
    void anIdNoPluginContributesStopsTheBootNamingTheRuntimesThere() {
        var e = assertThrows(IllegalStateException.class, () -> TestHost.builder().plugins("relay")
                .env("CADUCEUS__AGENT__RUNTIME", "remote-ish").start().close());
        assertTrue(e.getMessage().contains("agent.runtime is 'remote-ish', but no enabled plugin contributes that runtime"
                + " (runtimes here: local, relay)"), e.getMessage());
    }

    @Test
    void aProxyUrlWithTheRelayDisabledStopsTheBootInsteadOfRunningTheRemotesTurnsHere() {
        var e = assertThrows(IllegalStateException.class, () -> TestHost.builder().plugins("relay")
                .env("GATEWAY_PROXY_URL", REMOTE).env("CADUCEUS__PLUGINS__DISABLED", "relay").start().close());
        assertTrue(e.getMessage().contains("gateway.proxy_url (GATEWAY_PROXY_URL) is set"), e.getMessage());
        assertTrue(e.getMessage().contains("(runtimes here: local)"), e.getMessage());
        assertTrue(e.getMessage().contains("set agent.runtime: local"), e.getMessage());
    }
}
