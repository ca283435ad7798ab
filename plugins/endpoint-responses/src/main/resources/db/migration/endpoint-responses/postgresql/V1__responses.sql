-- The Responses store (http-api §8.6), as sqlite/V1__responses.sql. One row per stored response holds
-- the envelope as returned and the whole transcript up to and including that turn, so a chain of any
-- length is rebuilt from one row. created_at is unix seconds; accessed_at is a monotonic access tick
-- (not a time): the LRU order for max_stored. streamed is a 0/1 flag.
CREATE TABLE responses (
    id           TEXT    NOT NULL PRIMARY KEY,
    envelope     TEXT    NOT NULL,
    transcript   TEXT    NOT NULL,
    instructions TEXT,
    session_id   TEXT    NOT NULL,
    streamed     INTEGER NOT NULL,
    created_at   BIGINT  NOT NULL,
    accessed_at  BIGINT  NOT NULL
);
CREATE INDEX responses_accessed_at ON responses (accessed_at);

-- Conversation names (§8.1 `conversation`) → the latest response of that conversation.
CREATE TABLE conversations (
    name        TEXT NOT NULL PRIMARY KEY,
    response_id TEXT NOT NULL
);
CREATE INDEX conversations_response_id ON conversations (response_id);

-- The event journal of a streamed response (§8.7 replay): every frame as sent, in order.
CREATE TABLE response_events (
    response_id TEXT    NOT NULL,
    seq         BIGINT  NOT NULL,
    type        TEXT    NOT NULL,
    frame       TEXT    NOT NULL,
    PRIMARY KEY (response_id, seq)
);
