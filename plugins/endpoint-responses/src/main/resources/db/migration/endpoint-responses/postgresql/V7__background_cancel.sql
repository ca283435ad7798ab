-- A cancel asked on a node that does not run the background response, as
-- sqlite/V7__background_cancel.sql (which describes it): unix epoch milliseconds, NULL when nobody asked.
ALTER TABLE responses ADD COLUMN cancel_requested BIGINT;
