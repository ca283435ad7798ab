-- Dangerous-command patterns a person allowed with "always" (http-api.md §9.4, tools.md §5.3).
CREATE TABLE approval_allowlist (
    pattern_key TEXT PRIMARY KEY,
    added_at    TEXT NOT NULL
);
