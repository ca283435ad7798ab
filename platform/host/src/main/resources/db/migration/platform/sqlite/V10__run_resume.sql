-- Durable runs that resume (issue 46): a run whose server stopped continues where it was, on the next start or on
-- another node.
--   request_json   the run's request as admitted (messages, tools, options), so another process can execute it;
--                  null for runs that cannot resume (resume off, or a runtime that cannot)
--   resumes        how many times the run was resumed; resumed_at (epoch ms) and resumed_node the last time
-- run_steps holds the messages the agent added to the run's transcript (assistant messages with their tool calls,
-- tool results, the caller's outputs, steering), with the model calls made and the usage by then, written in the
-- journal's group commit: the resumed agent starts from them.
ALTER TABLE runs ADD COLUMN request_json TEXT;
ALTER TABLE runs ADD COLUMN resumes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN resumed_at BIGINT;
ALTER TABLE runs ADD COLUMN resumed_node TEXT;
CREATE TABLE run_steps (
    run_id       TEXT NOT NULL,
    idx          INTEGER NOT NULL,
    message_json TEXT NOT NULL,
    model_calls  INTEGER NOT NULL,
    usage_json   TEXT NOT NULL,
    PRIMARY KEY (run_id, idx)
);
