package dev.caduceus.plugin.jobs.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.plugin.jobs.Job;
import dev.caduceus.plugin.jobs.JobFields;
import dev.caduceus.plugin.jobs.JobPatch;
import dev.caduceus.plugin.jobs.schedule.InvalidScheduleException;
import dev.caduceus.plugin.jobs.schedule.Schedule;
import dev.caduceus.plugin.jobs.schedule.ScheduleParser;
import dev.caduceus.spi.http.HttpExchange;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The create and PATCH rules, in this order (the first failure answers): name, schedule, tz,
 * prompt, repeat, deliver. Lengths count Unicode code points, as Hermes does. Stateless.
 */
final class JobValidation {
    static final Pattern JOB_ID = Pattern.compile("[0-9a-f]{12}");
    static final Set<String> PATCHABLE = Set.of("name", "schedule", "tz", "prompt", "deliver", "skills", "skill",
            "repeat", "enabled", "webhook");
    static final int MAX_NAME = 200;
    static final int MAX_PROMPT = 5000;

    private JobValidation() {}

    /** The path's {@code job_id}, if it has the contract's form (12 lowercase hex). */
    static String jobId(HttpExchange exchange) {
        var id = exchange.pathParam("job_id");
        if (!JOB_ID.matcher(id).matches()) throw JobError.badRequest("Invalid job ID format");
        return id;
    }

    /** The request body as a JSON object; anything else is the contract's invalid-JSON answer. */
    static ObjectNode body(HttpExchange exchange) {
        if (exchange.body() instanceof ObjectNode object) return object;
        throw JobError.badRequest(JobError.INVALID_JSON);
    }

    static JobFields create(ObjectNode body, ZoneId defaultZone, Instant now) {
        var name = name(body.get("name"));
        var when = when(body, defaultZone, now);
        var prompt = prompt(body.get("prompt"));
        var repeat = repeat(body.get("repeat"));
        var deliver = deliver(body.get("deliver"));
        return new JobFields(name, when.text(), when.tz(), when.schedule(), prompt == null ? "" : prompt, repeat,
                deliver == null ? "local" : deliver, skills(body.get("skills")), skill(body.get("skill")),
                webhook(body.get("webhook")));
    }

    /**
     * A request's {@code schedule} and {@code tz}, validated as create validates them (schedule, then
     * tz; the same messages), for create and for {@code POST /api/jobs/preview}.
     */
    static When when(ObjectNode body, ZoneId defaultZone, Instant now) {
        var text = required(body.get("schedule"), "Schedule is required");
        var tz = body.get("tz");
        return new When(text, zoneText(tz), schedule(text, tz, defaultZone, now));
    }

    /**
     * A validated schedule.
     *
     * @param text     the schedule as sent, trimmed
     * @param tz       the request's IANA zone, or null for the default zone
     * @param schedule what it parses to
     */
    record When(String text, String tz, Schedule schedule) {}

    static JobPatch patch(ObjectNode body, Job current, ZoneId defaultZone, Instant now) {
        var sent = new ArrayList<String>();
        body.fieldNames().forEachRemaining(f -> { if (PATCHABLE.contains(f)) sent.add(f); });
        if (sent.isEmpty()) throw JobError.badRequest("No valid fields to update");
        var name = body.has("name") ? name(body.get("name")) : null;
        Schedule schedule = null;
        String scheduleText = null;
        String tz = current.tz();
        if (body.has("schedule") || body.has("tz")) {
            scheduleText = body.has("schedule") ? required(body.get("schedule"), "Schedule is required")
                    : current.scheduleText();
            var tzNode = body.has("tz") ? body.get("tz") : current.tz() == null ? null : body.textNode(current.tz());
            schedule = schedule(scheduleText, tzNode, defaultZone, now);
            tz = zoneText(tzNode);
            if (!body.has("schedule") && current.schedule() instanceof Schedule.Once once
                    && once.display().startsWith("once in ")) {
                schedule = current.schedule(); // "30m" means 30 minutes from when it was sent, not from now
            }
        }
        var prompt = body.has("prompt") ? prompt(body.get("prompt")) : null;
        var repeatSet = body.has("repeat");
        var repeat = repeatSet ? repeat(body.get("repeat")) : null;
        var deliver = body.has("deliver") ? deliver(body.get("deliver")) : null;
        Boolean enabled = body.has("enabled") ? flag(body.get("enabled")) : null;
        return new JobPatch(name, prompt, deliver, body.has("skills") ? skills(body.get("skills")) : null,
                body.has("skill"), skill(body.get("skill")), repeatSet, repeat, enabled, schedule, scheduleText, tz,
                body.has("webhook"), webhook(body.get("webhook")));
    }

    /** The {@code webhook} field: a URL or {url, events}; absent or null: none. */
    private static dev.caduceus.spi.webhook.Webhook webhook(JsonNode node) {
        if (node == null || node.isNull()) return null;
        try {
            return dev.caduceus.spi.webhook.Webhook.fromJson(node);
        } catch (IllegalArgumentException e) {
            throw JobError.badRequest("Invalid webhook: " + e.getMessage());
        }
    }

    private static String name(JsonNode node) {
        var name = required(node, "Name is required");
        if (name.codePointCount(0, name.length()) > MAX_NAME) throw JobError.badRequest("Name must be ≤ 200 characters");
        return name;
    }

    /** Trimmed text; missing, null, empty or not a scalar → {@code message}. */
    private static String required(JsonNode node, String message) {
        var text = node == null || !node.isValueNode() || node.isNull() ? "" : node.asText().trim();
        if (text.isEmpty()) throw JobError.badRequest(message);
        return text;
    }

    /** Parsed with {@code tz} (or the default zone when tz is absent or invalid: the schedule is judged first). */
    private static Schedule schedule(String text, JsonNode tz, ZoneId defaultZone, Instant now) {
        var zone = zone(tz);
        Schedule schedule;
        try {
            schedule = ScheduleParser.parse(text, zone == null ? defaultZone : zone, now);
        } catch (InvalidScheduleException e) {
            throw JobError.badRequest(e.getMessage());
        }
        if (tz != null && !tz.isNull() && zone == null)
            throw JobError.badRequest("Invalid time zone '" + (tz.isValueNode() ? tz.asText() : tz.toString()) + "'");
        return schedule;
    }

    /** An IANA zone id ({@code Europe/Berlin}, {@code UTC}); null when absent or not one. */
    private static ZoneId zone(JsonNode tz) {
        if (tz == null || !tz.isTextual()) return null;
        return ZoneId.getAvailableZoneIds().contains(tz.asText()) ? ZoneId.of(tz.asText()) : null;
    }

    private static String zoneText(JsonNode tz) {
        var zone = zone(tz);
        return zone == null ? null : zone.getId();
    }

    private static String prompt(JsonNode node) {
        if (node == null || node.isNull()) return null;
        if (!node.isValueNode()) throw JobError.badRequest("Prompt must be a string");
        var prompt = node.asText();
        if (prompt.codePointCount(0, prompt.length()) > MAX_PROMPT)
            throw JobError.badRequest("Prompt must be ≤ 5000 characters");
        return prompt;
    }

    /** An integer ≥ 1, or null when absent or JSON null (no limit). */
    private static Integer repeat(JsonNode node) {
        if (node == null || node.isNull()) return null;
        if (!node.isIntegralNumber() || !node.canConvertToInt() || node.intValue() < 1)
            throw JobError.badRequest("Repeat must be a positive integer");
        return node.intValue();
    }

    /** {@code local}; {@code origin} means local for jobs created over HTTP. No delivery plugins exist in v1. */
    private static String deliver(JsonNode node) {
        if (node == null || node.isNull()) return null;
        var target = node.isValueNode() ? node.asText() : node.toString();
        var lower = target.trim().toLowerCase(Locale.ROOT);
        if (lower.equals("local") || lower.equals("origin")) return "local";
        throw JobError.badRequest("Unsupported delivery target '" + target + "'");
    }

    /** Stored and returned; a string is one skill, non-text entries are dropped. */
    private static List<String> skills(JsonNode node) {
        var skills = new ArrayList<String>();
        if (node == null || node.isNull()) return skills;
        if (node.isTextual()) skills.add(node.asText());
        else if (node.isArray()) node.forEach(s -> { if (s.isTextual()) skills.add(s.asText()); });
        return skills;
    }

    private static String skill(JsonNode node) {
        return node == null || !node.isTextual() ? null : node.asText();
    }

    /** Flags (a JSON boolean or {@code 1/true/yes/on}, {@code 0/false/no/off}); anything else keeps the job as it is (null). */
    private static Boolean flag(JsonNode node) {
        if (node == null || node.isNull()) return null;
        if (node.isBoolean()) return node.booleanValue();
        return switch (node.asText().trim().toLowerCase(Locale.ROOT)) {
            case "1", "true", "yes", "on" -> true;
            case "0", "false", "no", "off" -> false;
            default -> null;
        };
    }
}
