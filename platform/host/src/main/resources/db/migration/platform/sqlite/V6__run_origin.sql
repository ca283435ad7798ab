-- What started a run on its owner's behalf (RunRequest.origin, issue 40): a generic "<kind>:<id>" in place
-- of the jobs plugin's own job_id, which the host had no business knowing. Existing job runs keep their
-- link: job_id 'abc' becomes origin 'job:abc'. GET /v1/runs?job_id= reads it back through the origin.
ALTER TABLE runs ADD COLUMN origin TEXT;
UPDATE runs SET origin = 'job:' || job_id WHERE job_id IS NOT NULL;
DROP INDEX runs_by_job;
ALTER TABLE runs DROP COLUMN job_id;
CREATE INDEX runs_by_origin ON runs (origin, created_at DESC);
