-- Background responses (issue 43): a cancel asked on a node that does not run the response. The node
-- running it (the one renewing its stream lease) looks for this mark every few hundred milliseconds
-- and stops the run; unix epoch milliseconds of the request, NULL when nobody asked.
ALTER TABLE responses ADD COLUMN cancel_requested INTEGER;
