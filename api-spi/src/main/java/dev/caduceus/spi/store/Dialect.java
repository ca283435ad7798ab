package dev.caduceus.spi.store;

/** The SQL dialect of the host database; only {@code SQLITE} in v1. */
public enum Dialect { SQLITE, POSTGRESQL }
