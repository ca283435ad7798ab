-- Session transcripts (http-api.md §6): one row per session, one per stored message.
CREATE TABLE sessions (
    session_id   TEXT PRIMARY KEY,
    last_used_at TEXT NOT NULL
);
CREATE TABLE session_messages (
    session_id   TEXT NOT NULL,
    seq          BIGINT NOT NULL,
    message_json TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
);
