package dev.caduceus.plugin.jobs.schedule;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.OffsetDateTime;
import java.time.ZoneId;

/** Reads a stored {@code schedule} object ({@link Schedule#json()}) back. Stateless. */
public final class ScheduleJson {
    private ScheduleJson() {}

    public static Schedule read(JsonNode node) {
        return switch (node.path("kind").asText()) {
            case "interval" -> new Schedule.Interval(node.path("minutes").asLong());
            case "cron" -> new Schedule.Cron(CronExpression.parse(node.path("expr").asText())
                    .orElseThrow(() -> new IllegalStateException("stored cron no longer parses: " + node)),
                    ZoneId.of(node.path("tz").asText()));
            case "once" -> new Schedule.Once(OffsetDateTime.parse(node.path("run_at").asText()).toInstant(),
                    node.path("display").asText());
            default -> throw new IllegalStateException("unknown stored schedule: " + node);
        };
    }
}
