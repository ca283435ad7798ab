-- Named keys are tenants (issue 21): each stored response belongs to the key that created it
-- (Caller.name()), and conversation names are per key (key B's "x" is not key A's "x"). Rows from
-- before keys had names belong to the admin key. The event journal and the chain messages are
-- reached only through their response row, where ownership is checked, so they carry no owner (a
-- chain may be shared: the admin key can continue any key's response).
ALTER TABLE responses ADD COLUMN owner TEXT NOT NULL DEFAULT 'admin';

ALTER TABLE conversations RENAME TO conversations_v3;
CREATE TABLE conversations (
    owner       TEXT NOT NULL,
    name        TEXT NOT NULL,
    response_id TEXT NOT NULL,
    PRIMARY KEY (owner, name)
);
INSERT INTO conversations (owner, name, response_id) SELECT 'admin', name, response_id FROM conversations_v3;
DROP TABLE conversations_v3;
CREATE INDEX conversations_response_id ON conversations (response_id);
