-- Transcripts shared along a chain (issue 5: turn N costs what turn 1 costs). A chain is a numbered
-- run of messages; a response's transcript is the messages of its chain with seq <= last_seq, read
-- with one range query on the primary key. A turn appends only its own messages (seq base_seq+1 ..
-- last_seq) to its parent's chain; a turn continuing a response that is not the chain's tip (a
-- branch) first copies seq <= parent.last_seq into a new chain. V1 rows keep chain_id NULL and are
-- still read from their transcript column (new rows write '[]' there); their next turn starts a
-- chain seeded with that transcript.
ALTER TABLE responses ADD COLUMN chain_id TEXT;
ALTER TABLE responses ADD COLUMN base_seq INTEGER;
ALTER TABLE responses ADD COLUMN last_seq INTEGER;
CREATE INDEX responses_chain ON responses (chain_id, last_seq);

CREATE TABLE response_messages (
    chain_id     TEXT    NOT NULL,
    seq          INTEGER NOT NULL,
    message_json TEXT    NOT NULL,
    PRIMARY KEY (chain_id, seq)
);
