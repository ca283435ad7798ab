-- Who is still streaming a response (issue 25: several nodes on one PostgreSQL database). While a
-- response is in_progress, the process streaming it keeps streaming_until (unix epoch milliseconds)
-- a minute ahead, renewing it every few seconds; NULL once it is no longer in_progress (and for rows
-- saved before V6). A response in_progress whose lease ran out belongs to a process that died: another
-- node marks it incomplete, as the next start does on SQLite, and a replay elsewhere stops following it.
ALTER TABLE responses ADD COLUMN streaming_until INTEGER;
CREATE INDEX responses_streaming ON responses (streaming_until);
