-- Durable runs (http-api.md §9, architecture §3.9): one status row per run, its journaled events
-- numbered per run from 1, and the Idempotency-Keys of POST /v1/runs. Times are epoch milliseconds.
CREATE TABLE runs (
    run_id        TEXT PRIMARY KEY,
    status        TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    session_id    TEXT,
    model         TEXT,
    job_id        TEXT,
    last_seq      INTEGER NOT NULL DEFAULT 0,
    last_event    TEXT,
    output        TEXT,
    usage_json    TEXT,
    error         TEXT,
    pending_steer TEXT,
    approval_json TEXT
);
CREATE INDEX runs_newest_first ON runs (created_at DESC, run_id DESC);
CREATE INDEX runs_by_session ON runs (session_id, created_at DESC);
CREATE INDEX runs_by_job ON runs (job_id, created_at DESC);
CREATE INDEX runs_by_status ON runs (status, updated_at);
CREATE TABLE run_events (
    run_id     TEXT NOT NULL,
    seq        INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    event_json TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);
CREATE TABLE run_idempotency_keys (
    idempotency_key TEXT PRIMARY KEY,
    fingerprint     TEXT NOT NULL,
    run_id          TEXT NOT NULL,
    created_at      INTEGER NOT NULL
);
