-- Access ticks (accessed_at, created_seq) from a sequence: a save no longer reads MAX(accessed_at), which under
-- SERIALIZABLE made every save depend on every other one (and fail after its retries under load). It starts above
-- any tick the old counter (one per save or read) can have reached, so that new ticks come after the old ones.
CREATE SEQUENCE responses_tick START WITH 1000000000000;
