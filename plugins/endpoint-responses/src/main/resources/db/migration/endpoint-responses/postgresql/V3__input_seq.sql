-- Where a response's own input ends in its chain (GET /v1/responses/{id}/input_items), as
-- sqlite/V3__input_seq.sql. NULL for rows written before V3.
ALTER TABLE responses ADD COLUMN input_seq BIGINT;
