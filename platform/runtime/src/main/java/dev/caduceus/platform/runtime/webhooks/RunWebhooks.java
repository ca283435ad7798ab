package dev.caduceus.platform.runtime.webhooks;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.platform.host.webhooks.WebhookDispatcher;
import dev.caduceus.platform.host.webhooks.WebhookEvent;
import dev.caduceus.platform.host.webhooks.DeploymentWebhooks;
import dev.caduceus.platform.runtime.journal.JournalListener;
import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.store.Sql;
import dev.caduceus.spi.webhook.Webhook;
import java.util.List;
import java.util.Optional;

/**
 * The webhook events of durable runs, found in each journal commit and written to the outbox in its
 * transaction: {@code run.completed}, {@code run.failed}, {@code run.cancelled} when a run ends,
 * {@code run.requires_action} when it waits for its caller's tool outputs, {@code approval.requested} when it
 * waits for an approval (with the routes that answer it). Each goes to the webhook the run's request named and
 * to the configured endpoints that want it. The data: ids, status, usage, and previews of at most
 * {@value #PREVIEW_CHARS} characters; never a transcript.
 */
public final class RunWebhooks implements JournalListener {
    static final int PREVIEW_CHARS = 500;

    private final DeploymentWebhooks webhooks;
    private final WebhookDispatcher dispatcher;
    private final ObjectMapper json;

    public RunWebhooks(DeploymentWebhooks webhooks, WebhookDispatcher dispatcher, ObjectMapper json) {
        this.webhooks = webhooks;
        this.dispatcher = dispatcher;
        this.json = json;
    }

    private record Run(String owner, String sessionId, String webhookJson) {}

    @Override
    public void committing(Sql sql, List<JournalEntry> entries) {
        if (!webhooks.enabled()) return; // no secret and no endpoint: nothing could be sent, nothing is looked up
        for (var entry : entries) {
            var type = type(entry.event());
            if (type == null) continue;
            var run = sql.queryOne("SELECT owner, session_id, webhook_json FROM runs WHERE run_id = ?",
                    r -> new Run(r.getString(1), r.getString(2), r.getString(3)), entry.runId());
            if (run.isEmpty()) continue;
            var requested = webhook(run.get().webhookJson());
            var data = data(entry, run.get());
            webhooks.enqueue(sql, new WebhookEvent(type, entry.timestamp(), run.get().owner(), entry.runId() + ":" + entry.seq(),
                    data), requested.orElse(null));
        }
    }

    @Override
    public void committed() {
        dispatcher.wake();
    }

    /** The webhook event type of a journal event, or null for one that has none. */
    static String type(RunEvent event) {
        return switch (event) {
            case RunEvent.Completed c -> "run.completed";
            case RunEvent.Failed f -> "run.failed";
            case RunEvent.Cancelled c -> "run.cancelled";
            case RunEvent.ToolCallsRequired t -> "run.requires_action";
            case RunEvent.ApprovalRequested a -> "approval.requested";
            default -> null;
        };
    }

    private Optional<Webhook> webhook(String stored) {
        if (stored == null) return Optional.empty();
        try {
            return Optional.of(Webhook.fromJson(json.readTree(stored)));
        } catch (Exception e) {
            return Optional.empty();
        }
    }

    private ObjectNode data(JournalEntry entry, Run run) {
        var data = json.createObjectNode().put("run_id", entry.runId());
        if (run.sessionId() != null) data.put("session_id", run.sessionId());
        switch (entry.event()) {
            case RunEvent.Completed c -> {
                data.put("status", "completed");
                usage(data, c.usage());
                preview(data, "output_preview", c.output());
            }
            case RunEvent.Failed f -> {
                data.put("status", "failed");
                usage(data, f.usage());
                var error = data.putObject("error");
                if (f.code() != null) error.put("code", f.code());
                preview(error, "message", f.message());
            }
            case RunEvent.Cancelled c -> {
                data.put("status", "cancelled");
                usage(data, c.usage());
                if (c.reason() != null) data.put("reason", c.reason());
            }
            case RunEvent.ToolCallsRequired t -> {
                data.put("status", "requires_action");
                var calls = data.putArray("tool_calls");
                t.calls().stream().limit(64).forEach(call -> calls.addObject().put("id", call.id()).put("name", call.name()));
                data.put("submit", "POST /v1/runs/" + entry.runId() + "/tool_outputs");
            }
            case RunEvent.ApprovalRequested a -> {
                data.put("status", "waiting_for_approval");
                var approval = data.putObject("approval");
                approval.put("approval_id", a.approvalId());
                preview(approval, "command_preview", a.command());
                preview(approval, "description", a.description());
                approval.put("timeout_seconds", a.timeoutSeconds());
                var routes = data.putObject("routes");
                routes.put("approve", "POST /v1/runs/" + entry.runId() + "/approval {\"choice\":\"once\"}");
                routes.put("deny", "POST /v1/runs/" + entry.runId() + "/approval {\"choice\":\"deny\"}");
            }
            default -> { }
        }
        return data;
    }

    private static void usage(ObjectNode data, Usage usage) {
        if (usage == null) return;
        data.putObject("usage").put("input_tokens", usage.inputTokens()).put("output_tokens", usage.outputTokens())
                .put("total_tokens", usage.totalTokens());
    }

    private static void preview(ObjectNode node, String field, String text) {
        if (text == null) return;
        node.put(field, text.length() > PREVIEW_CHARS ? text.substring(0, PREVIEW_CHARS) + "…" : text);
    }
}
