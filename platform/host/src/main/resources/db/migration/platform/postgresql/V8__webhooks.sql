-- Webhooks (issue 44). webhook_deliveries is the outbox: one row per event and receiver, written in the
-- transaction that changed the state the event tells of (a run's journal commit), so that nothing is lost on
-- kill -9; a node's dispatcher claims due rows with a lease (lease_owner, lease_until), so that on several
-- nodes each is sent by one. message_id is the webhook-id a receiver sees, the same on every attempt.
--   target         'request' (the run's own webhook, signed with webhooks.secret) or 'endpoint' (one of
--                  webhooks.endpoints, signed with its secret, found by url when sent)
--   status         pending, delivered or failed; next_attempt_at is NULL once it is not pending
--   runs.webhook_json  the webhook the run's request named ({url, events}), or NULL
-- Times are epoch milliseconds.
CREATE TABLE webhook_deliveries (
    id              TEXT PRIMARY KEY,
    message_id      TEXT NOT NULL,
    event_type      TEXT NOT NULL,
    owner           TEXT,
    url             TEXT NOT NULL,
    target          TEXT NOT NULL,
    allow_private   INTEGER NOT NULL,
    payload         TEXT NOT NULL,
    status          TEXT NOT NULL,
    attempts        INTEGER NOT NULL,
    created_at      BIGINT NOT NULL,
    next_attempt_at BIGINT,
    lease_owner     TEXT,
    lease_until     BIGINT,
    last_status     INTEGER,
    last_error      TEXT,
    delivered_at    BIGINT,
    UNIQUE (message_id, url)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
CREATE INDEX webhook_deliveries_by_owner ON webhook_deliveries (owner, created_at);
ALTER TABLE runs ADD COLUMN webhook_json TEXT;
