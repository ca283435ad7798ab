-- The caller's own tool calls a run waits for while it is requires_action (issue 42: client tools on runs), as a
-- JSON array of {id, name, arguments}; NULL otherwise.
ALTER TABLE runs ADD COLUMN tool_calls_json TEXT;
