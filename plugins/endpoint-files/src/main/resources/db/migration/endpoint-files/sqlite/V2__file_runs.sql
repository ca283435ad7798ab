-- A file the agent delivered (the deliver_file tool) names the run that made it: GET /v1/runs/{id}/artifacts.
ALTER TABLE files ADD COLUMN run_id TEXT;
CREATE INDEX files_by_run ON files (run_id);
