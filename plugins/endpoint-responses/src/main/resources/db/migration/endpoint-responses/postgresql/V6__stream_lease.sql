-- Who is still streaming a response, as sqlite/V6__stream_lease.sql (which describes it): unix epoch
-- milliseconds until which the node streaming an in_progress response vouches for it; NULL otherwise.
ALTER TABLE responses ADD COLUMN streaming_until BIGINT;
CREATE INDEX responses_streaming ON responses (streaming_until);
