package dev.caduceus.plugin.terminal;

/** {@link TerminalToolTest} on the local backend. */
class LocalTerminalToolTest extends TerminalToolTest {
    @Override
    String backend() {
        return "local";
    }
}
