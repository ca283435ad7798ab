-- Several nodes on one database (issue 25). On SQLite there is only ever one node, but the tables are the
-- same on both engines so that the code reading them is too.
--   cluster_nodes  one row per live node: its lease, renewed every 2 s; a row not renewed for 10 s is a
--                  dead node, whose live runs another node ends as interrupted, then deletes the row.
--   runs.node_id   the node executing the run (its owner while it is live); NULL for runs from before V5.
--   run_commands   stop, approval and steer sent to a node that does not own the run, for the owner to
--                  carry out and answer (answer: the JSON of the outcome). Times are epoch milliseconds.
CREATE TABLE cluster_nodes (
    node_id    TEXT PRIMARY KEY,
    host       TEXT NOT NULL,
    pid        INTEGER NOT NULL,
    started_at INTEGER NOT NULL,
    renewed_at INTEGER NOT NULL
);
ALTER TABLE runs ADD COLUMN node_id TEXT;
CREATE INDEX runs_by_node ON runs (node_id, status);
CREATE TABLE run_commands (
    id          TEXT PRIMARY KEY,
    run_id      TEXT NOT NULL,
    node_id     TEXT NOT NULL,
    kind        TEXT NOT NULL,
    body        TEXT,
    created_at  INTEGER NOT NULL,
    answered_at INTEGER,
    answer      TEXT
);
CREATE INDEX run_commands_pending ON run_commands (node_id, answered_at);
