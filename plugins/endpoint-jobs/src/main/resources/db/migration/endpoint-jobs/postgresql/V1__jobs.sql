-- Jobs (http-api §10), as sqlite/V1__jobs.sql. Times are unix epoch milliseconds (BIGINT) so that
-- due-time comparisons and the claim's compare-and-set are exact; the HTTP layer formats them as
-- ISO-8601 UTC. Flags are INTEGER 0/1, as on SQLite.
CREATE TABLE jobs (
    id                  TEXT PRIMARY KEY,            -- 12 lowercase hex
    name                TEXT NOT NULL,
    prompt              TEXT NOT NULL,
    schedule_text       TEXT NOT NULL,               -- as sent, trimmed; re-parsed when tz changes
    schedule            TEXT NOT NULL,               -- the parsed schedule object (JSON, as served)
    tz                  TEXT,                        -- the request's tz, or null (server zone)
    skills              TEXT NOT NULL,               -- JSON array of strings
    skill               TEXT,
    deliver             TEXT NOT NULL,
    repeat_times        BIGINT,                      -- null: forever
    repeat_completed    BIGINT NOT NULL DEFAULT 0,
    enabled             INTEGER NOT NULL,
    state               TEXT NOT NULL,               -- scheduled | paused | running | completed | error
    paused_at           BIGINT,
    paused_reason       TEXT,
    created_at          BIGINT NOT NULL,
    next_run_at         BIGINT,                      -- null: nothing scheduled
    next_trigger        TEXT NOT NULL DEFAULT 'schedule', -- 'manual' after POST /run
    last_run_at         BIGINT,
    last_status         TEXT,                        -- ok | error | null
    last_error          TEXT,
    last_run_id         TEXT,
    current_run_id      TEXT,                        -- the live run of this job, if any
    updated_at          BIGINT NOT NULL
);

CREATE INDEX jobs_due ON jobs (enabled, next_run_at);
CREATE INDEX jobs_live ON jobs (current_run_id);

-- One row per firing that started a run: what the run record does not know.
CREATE TABLE job_runs (
    run_id              TEXT PRIMARY KEY,
    job_id              TEXT NOT NULL,
    trigger             TEXT NOT NULL,               -- schedule | manual
    scheduled_for       BIGINT NOT NULL,
    fired_at            BIGINT NOT NULL
);

CREATE INDEX job_runs_by_job ON job_runs (job_id, fired_at);
