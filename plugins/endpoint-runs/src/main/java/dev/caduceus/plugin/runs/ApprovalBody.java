package dev.caduceus.plugin.runs;

import dev.caduceus.support.wire.Flags;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.spi.agent.ApprovalAnswer;
import dev.caduceus.spi.tool.ToolContext.ApprovalChoice;
import java.util.Locale;

/**
 * The body of {@code POST /v1/runs/{run_id}/approval} as an {@link ApprovalAnswer}:
 * {@code choice} case-insensitive {@code once}, {@code session}, {@code always} or {@code deny}
 * ({@code approve}, {@code approved} and {@code allow} mean {@code once}); {@code all} or
 * {@code resolve_all} (flags: booleans or yes/no words) answer every pending request; {@code request_id} (a non-blank
 * string of at most 256 chars) targets one. Stateless.
 */
final class ApprovalBody {
    static final int MAX_REQUEST_ID = 256;

    private ApprovalBody() {}

    static ApprovalAnswer parse(JsonNode body) {
        var choice = choice(body.get("choice"));
        var all = Flags.parse(body.get("all"), false) || Flags.parse(body.get("resolve_all"), false);
        return new ApprovalAnswer(choice, requestId(body.get("request_id")), all);
    }

    /** The wire name of a choice ({@code once}). */
    static String wireName(ApprovalChoice choice) {
        return choice.name().toLowerCase(Locale.ROOT);
    }

    private static ApprovalChoice choice(JsonNode node) {
        var raw = node == null || node.isNull() ? "" : node.isTextual() ? node.asText() : node.toString();
        return switch (raw.trim().toLowerCase(Locale.ROOT)) {
            case "once", "approve", "approved", "allow" -> ApprovalChoice.ONCE;
            case "session" -> ApprovalChoice.SESSION;
            case "always" -> ApprovalChoice.ALWAYS;
            case "deny" -> ApprovalChoice.DENY;
            default -> throw RunErrors.badRequest("invalid_approval_choice",
                    "Invalid choice '" + raw + "'; use once, session, always or deny", "choice");
        };
    }

    private static String requestId(JsonNode node) {
        if (node == null || node.isNull()) return null;
        var id = node.isTextual() ? node.asText().trim() : "";
        if (id.isEmpty() || id.length() > MAX_REQUEST_ID)
            throw RunErrors.badRequest("invalid_approval_request", "Approval request_id is invalid.", "request_id");
        return id;
    }
}
