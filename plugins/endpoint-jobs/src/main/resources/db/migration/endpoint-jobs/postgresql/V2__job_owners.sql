-- Tenancy: every job belongs to the API key that created it (the key's name, never the key), and
-- its firings run as that key. Jobs created before keys had names belong to the admin key.
ALTER TABLE jobs ADD COLUMN owner TEXT NOT NULL DEFAULT 'admin';

CREATE INDEX jobs_by_owner ON jobs (owner, enabled);
