-- Webhooks (issue 44): the webhook a job's create or PATCH named ({url, events}), told of each of its runs'
-- ends (job.run.completed, job.run.failed); NULL: none.
ALTER TABLE jobs ADD COLUMN webhook_json TEXT;
