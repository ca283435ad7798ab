-- Transcripts shared along a chain, as sqlite/V2__chain_messages.sql: a chain is a numbered run of
-- messages; a response's transcript is the messages of its chain with seq <= last_seq. V1 rows keep
-- chain_id NULL and are still read from their transcript column.
ALTER TABLE responses ADD COLUMN chain_id TEXT;
ALTER TABLE responses ADD COLUMN base_seq BIGINT;
ALTER TABLE responses ADD COLUMN last_seq BIGINT;
CREATE INDEX responses_chain ON responses (chain_id, last_seq);

CREATE TABLE response_messages (
    chain_id     TEXT    NOT NULL,
    seq          BIGINT  NOT NULL,
    message_json TEXT    NOT NULL,
    PRIMARY KEY (chain_id, seq)
);
