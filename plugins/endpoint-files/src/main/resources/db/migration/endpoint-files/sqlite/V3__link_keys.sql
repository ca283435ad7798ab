-- The key that signs download links (GET /v1/files/{id}/download?expires=…&signature=…): one row, made at the first
-- start and shared by every node of the database.
CREATE TABLE file_link_keys (
    id      INTEGER PRIMARY KEY,   -- always 1
    secret  TEXT NOT NULL          -- 64 hex digits
);
