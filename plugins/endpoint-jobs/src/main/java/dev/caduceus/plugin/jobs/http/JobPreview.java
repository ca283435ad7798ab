package dev.caduceus.plugin.jobs.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.plugin.jobs.schedule.FireTimes;
import dev.caduceus.plugin.jobs.schedule.IsoTimes;
import dev.caduceus.spi.http.HttpExchange;
import java.time.Clock;
import java.time.ZoneId;

/**
 * {@code POST /api/jobs/preview} ({@code {"schedule", "tz", "count"}}): what a job created now with
 * that schedule would be scheduled as, without storing anything. The schedule and tz are validated by
 * create's own rules ({@link JobValidation#when}: the same flat messages), then {@code count}; the
 * answer is the job's {@code schedule} object and up to {@code count} fire times
 * ({@link FireTimes#upcoming}, the scheduler's rules), formatted as every job time is. A repeat limit
 * is not known here and not applied. Thread-safe (stateless beyond the clock).
 */
final class JobPreview {
    static final int DEFAULT_COUNT = 5;
    static final int MAX_COUNT = 20;
    static final String INVALID_COUNT = "Count must be an integer from 1 to " + MAX_COUNT;

    private final Clock clock;
    private final ZoneId defaultZone;

    JobPreview(Clock clock, ZoneId defaultZone) {
        this.clock = clock;
        this.defaultZone = defaultZone;
    }

    void handle(HttpExchange exchange) {
        var body = JobValidation.body(exchange);
        var now = clock.instant();
        var when = JobValidation.when(body, defaultZone, now);
        int count = count(body.get("count"));
        var answer = JsonNodeFactory.instance.objectNode();
        answer.set("schedule", when.schedule().json());
        var times = answer.putArray("next_runs");
        FireTimes.upcoming(when.schedule(), now, count).forEach(t -> times.add(IsoTimes.format(t)));
        exchange.respond(200, answer);
    }

    /** An integer 1–20 (JSON number, no fraction); absent or null is {@link #DEFAULT_COUNT}. */
    private static int count(JsonNode node) {
        if (node == null || node.isNull()) return DEFAULT_COUNT;
        if (!node.isIntegralNumber() || !node.canConvertToInt() || node.intValue() < 1 || node.intValue() > MAX_COUNT)
            throw JobError.badRequest(INVALID_COUNT);
        return node.intValue();
    }
}
