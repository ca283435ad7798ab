package dev.caduceus.plugin.jobs;

import dev.caduceus.plugin.jobs.schedule.Schedule;
import java.util.List;

/**
 * The validated fields of a PATCH; null means "not sent". A new {@code schedule}
 * comes with the {@code scheduleText} and {@code tz} it was read with (a changed {@code tz} alone
 * re-reads the stored text). {@code skillSet} and {@code repeatSet} tell a sent null from an absent
 * key; so does {@code webhookSet} ({@code "webhook": null} removes the job's webhook). Immutable.
 */
public record JobPatch(String name, String prompt, String deliver, List<String> skills, boolean skillSet, String skill,
                       boolean repeatSet, Integer repeatTimes, Boolean enabled, Schedule schedule, String scheduleText,
                       String tz, boolean webhookSet, dev.caduceus.spi.webhook.Webhook webhook) {
    public JobPatch {
        skills = skills == null ? null : List.copyOf(skills);
    }
}
