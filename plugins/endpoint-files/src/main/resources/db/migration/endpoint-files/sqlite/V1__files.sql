-- Uploaded files (/v1/files). The bytes live in the content-addressed store (files.dir), named by sha256;
-- a row is one file object of one owner (the key that uploaded it). Times are unix epoch seconds.
CREATE TABLE files (
    id           TEXT PRIMARY KEY,      -- file- and 24 hex digits
    owner        TEXT NOT NULL,         -- the uploading key's name
    filename     TEXT NOT NULL,         -- sanitised: no directories, no control characters
    purpose      TEXT NOT NULL,         -- user_data | assistants
    bytes        INTEGER NOT NULL,
    sha256       TEXT NOT NULL,         -- 64 hex digits: the blob's name
    content_type TEXT NOT NULL,         -- sniffed from the bytes, never the client's word
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER                -- null: kept until deleted
);

CREATE INDEX files_by_owner ON files (owner, created_at, id);
CREATE INDEX files_by_blob ON files (sha256);
CREATE INDEX files_by_expiry ON files (expires_at);
