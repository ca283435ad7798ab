-- Named keys are tenants (issue 21), as sqlite/V4__owners.sql: each stored response belongs to the key
-- that created it, and conversation names are per key. Rows from before keys had names belong to the
-- admin key. SQLite cannot change a primary key and rebuilds the table; PostgreSQL alters it in place
-- (the owner column then comes last, which no statement depends on).
ALTER TABLE responses ADD COLUMN owner TEXT NOT NULL DEFAULT 'admin';

ALTER TABLE conversations ADD COLUMN owner TEXT NOT NULL DEFAULT 'admin';
ALTER TABLE conversations ALTER COLUMN owner DROP DEFAULT;
ALTER TABLE conversations DROP CONSTRAINT conversations_pkey;
ALTER TABLE conversations ADD PRIMARY KEY (owner, name);
