-- Webhooks (issue 44): the webhook a background response's request named ({url, events}), told when it ends
-- (response.completed, response.failed, response.cancelled); NULL: none.
ALTER TABLE responses ADD COLUMN webhook_json TEXT;
