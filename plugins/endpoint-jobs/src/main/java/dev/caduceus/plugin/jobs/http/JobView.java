package dev.caduceus.plugin.jobs.http;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.plugin.jobs.Job;
import dev.caduceus.plugin.jobs.schedule.IsoTimes;

/**
 * The job object, keys in a fixed order. Fields Caduceus never sets over
 * HTTP ({@code model}, {@code script}, {@code workdir}, …) are present with their empty values, as
 * Hermes clients expect; {@code owner} (the key's name) is added at the end. Stateless.
 */
final class JobView {
    private JobView() {}

    static ObjectNode of(Job job) {
        var o = JsonNodeFactory.instance.objectNode();
        o.put("id", job.id()).put("name", job.name()).put("prompt", job.prompt());
        var skills = o.putArray("skills");
        job.skills().forEach(skills::add);
        o.put("skill", job.skill()).putNull("model").putNull("provider").putNull("base_url").putNull("script")
                .put("no_agent", false).putNull("context_from");
        o.set("schedule", job.schedule().json());
        o.put("schedule_display", job.schedule().display());
        o.putObject("repeat").put("times", job.repeatTimes()).put("completed", job.repeatCompleted());
        o.put("enabled", job.enabled()).put("state", job.state())
                .put("paused_at", IsoTimes.format(job.pausedAt())).put("paused_reason", job.pausedReason())
                .put("created_at", IsoTimes.format(job.createdAt()))
                .put("next_run_at", IsoTimes.format(job.nextRunAt()))
                .put("last_run_at", IsoTimes.format(job.lastRunAt()))
                .put("last_status", job.lastStatus()).put("last_error", job.lastError())
                .putNull("last_delivery_error")
                .put("deliver", job.deliver()).putNull("origin").putNull("enabled_toolsets").putNull("workdir")
                .putNull("profile").put("last_run_id", job.lastRunId())
                .put("owner", job.owner()); // a Caduceus addition: the key (tenant) the job belongs to
        if (job.webhook() == null) o.putNull("webhook"); // another: where its runs' ends are told
        else o.set("webhook", job.webhook().toJson());
        return o;
    }

    /** {@code {"job": {…}}}. */
    static ObjectNode wrapped(Job job) {
        var o = JsonNodeFactory.instance.objectNode();
        o.set("job", of(job));
        return o;
    }
}
