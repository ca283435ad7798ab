-- The next message number of each session, kept on its row (issue 48): an append numbers its messages
-- from the upsert that locks the row (RETURNING), instead of a MAX(seq) query over session_messages.
ALTER TABLE sessions ADD COLUMN last_seq BIGINT NOT NULL DEFAULT 0;
UPDATE sessions SET last_seq = COALESCE((SELECT MAX(seq) FROM session_messages m WHERE m.session_id = sessions.session_id), 0);
