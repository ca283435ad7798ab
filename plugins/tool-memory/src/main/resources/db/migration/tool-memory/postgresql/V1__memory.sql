-- The memory tool's entries (tools.md §9): one row per entry, ordered by position within
-- (scope, store). store is 'memory' (agent notes) or 'user' (user profile). A write rewrites the
-- rows of one (scope, store) inside one transaction.
CREATE TABLE memory_entries (
    scope      TEXT    NOT NULL,
    store      TEXT    NOT NULL,
    position   INTEGER NOT NULL,
    text       TEXT    NOT NULL,
    created_at TEXT    NOT NULL,
    updated_at TEXT    NOT NULL,
    PRIMARY KEY (scope, store, position)
);
