package dev.caduceus.plugin.terminal;

import dev.caduceus.platform.testkit.SandboxAvailable;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link ProcessToolTest} in the bubblewrap sandbox. */
@ExtendWith(SandboxAvailable.class)
class SandboxProcessToolTest extends ProcessToolTest {
    @Override
    String backend() {
        return "sandbox";
    }
}
