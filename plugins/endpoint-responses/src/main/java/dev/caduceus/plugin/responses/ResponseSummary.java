package dev.caduceus.plugin.responses;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.spi.message.Message;
import java.util.List;

/**
 * What a response list shows of one stored response besides its id, time, owner and conversation:
 * written to the row's list columns on every save ({@code V5__response_list.sql}), so that a list
 * never reads an envelope or a transcript. Immutable.
 *
 * @param status             the envelope's {@code status}
 * @param model              the envelope's {@code model}
 * @param previousResponseId the envelope's {@code previous_response_id}, or null
 * @param inputPreview       the turn's last user input ({@link Previews#input}), or null
 * @param outputPreview      the final assistant text ({@link Previews#output}), or null
 */
record ResponseSummary(String status, String model, String previousResponseId, String inputPreview,
                       String outputPreview) {

    /** The summary of {@code envelope}, whose turn's input messages are {@code inputs}. */
    static ResponseSummary of(JsonNode envelope, List<Message> inputs) {
        return new ResponseSummary(text(envelope, "status"), text(envelope, "model"),
                text(envelope, "previous_response_id"), Previews.input(inputs), Previews.output(envelope));
    }

    private static String text(JsonNode envelope, String field) {
        var node = envelope.path(field);
        return node.isTextual() ? node.asText() : null;
    }
}
