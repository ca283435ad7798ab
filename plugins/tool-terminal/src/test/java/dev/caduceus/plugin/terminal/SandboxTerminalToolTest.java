package dev.caduceus.plugin.terminal;

import dev.caduceus.platform.testkit.SandboxAvailable;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link TerminalToolTest} in the bubblewrap sandbox. */
@ExtendWith(SandboxAvailable.class)
class SandboxTerminalToolTest extends TerminalToolTest {
    @Override
    String backend() {
        return "sandbox";
    }
}
