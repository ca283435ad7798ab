-- Model spend (issue 47): every model call's tokens and cost, summed per key (owner), UTC day, route and deployment.
-- A node sums its calls in memory and adds them here about once a second (and when it stops), so a turn does not
-- pay a write; budgets read the sum of the period's days plus what the node has not written yet.
--   day        UTC date, yyyy-mm-dd
--   cost_pico  cost in picodollars (10^-12 USD), from the deployment's price: whole numbers, so sums are exact
CREATE TABLE model_usage (
    owner            TEXT NOT NULL,
    day              TEXT NOT NULL,
    route            TEXT NOT NULL,
    deployment       TEXT NOT NULL,
    calls            BIGINT NOT NULL,
    input_tokens     BIGINT NOT NULL,
    cached_tokens    BIGINT NOT NULL,
    output_tokens    BIGINT NOT NULL,
    reasoning_tokens BIGINT NOT NULL,
    cost_pico        BIGINT NOT NULL,
    PRIMARY KEY (owner, day, route, deployment)
);
CREATE INDEX model_usage_by_day ON model_usage (day);
