-- Each run belongs to the key that started it (named keys are tenants); runs from before keys had
-- names belong to the admin key.
ALTER TABLE runs ADD COLUMN owner TEXT NOT NULL DEFAULT 'admin';
CREATE INDEX runs_by_owner ON runs (owner, created_at DESC);
