package dev.caduceus.plugin.terminal;

/** {@link ProcessToolTest} on the local backend. */
class LocalProcessToolTest extends ProcessToolTest {
    @Override
    String backend() {
        return "local";
    }
}
