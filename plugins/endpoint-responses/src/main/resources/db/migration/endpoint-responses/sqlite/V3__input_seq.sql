-- Where a response's own input ends in its chain (GET /v1/responses/{id}/input_items): the items
-- used to generate a response are its transcript up to and including that turn's input messages,
-- seq 1 .. input_seq, before the messages the run produced (input_seq .. last_seq). Rows written
-- before V3 keep it NULL; their input is taken to end at the last message that is neither an
-- assistant nor a tool message (a run only produces those).
ALTER TABLE responses ADD COLUMN input_seq INTEGER;
