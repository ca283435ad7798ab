package dev.caduceus.spi.store;

/** A unit of database work run by {@link PluginDatabase}. */
@FunctionalInterface
public interface SqlWork<T> {
    T run(Sql sql) throws Exception;
}
