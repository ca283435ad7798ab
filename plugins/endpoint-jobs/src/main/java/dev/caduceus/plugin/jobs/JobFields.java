package dev.caduceus.plugin.jobs;

import static java.util.Objects.requireNonNull;

import dev.caduceus.plugin.jobs.schedule.Schedule;
import java.util.List;

/** The validated fields of a create request. Immutable. */
public record JobFields(String name, String scheduleText, String tz, Schedule schedule, String prompt,
                        Integer repeatTimes, String deliver, List<String> skills, String skill,
                        dev.caduceus.spi.webhook.Webhook webhook) {
    public JobFields {
        requireNonNull(name, "name");
        requireNonNull(scheduleText, "scheduleText");
        requireNonNull(schedule, "schedule");
        requireNonNull(prompt, "prompt");
        requireNonNull(deliver, "deliver");
        skills = List.copyOf(skills);
    }
}
