package dev.caduceus.plugin.responses;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.http.HttpExchange;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * The query of {@code GET /v1/responses/{id}/input_items}, as OpenAI defines it: {@code limit}
 * (1–100, default 20), {@code order} ({@code asc} or {@code desc}, default {@code desc}: newest
 * first), {@code after} and {@code before} (item ids of the same list). {@code include} is
 * accepted and ignored (nothing is left out of an item). Each bad value is its own 400. Immutable.
 *
 * @param limit      page size
 * @param descending newest first
 * @param after      the page starts after this item id, or null
 * @param before     the page ends before this item id, or null
 */
record InputItemsQuery(int limit, boolean descending, String after, String before) {
    static final int DEFAULT_LIMIT = 20;
    static final int MAX_LIMIT = 100;

    /** Reads and validates the query; ids are checked against the list by {@link #page}. */
    static InputItemsQuery from(HttpExchange exchange) {
        return new InputItemsQuery(limit(exchange), dev.caduceus.support.wire.QueryValues.descending(exchange), id(exchange, "after"), id(exchange, "before"));
    }

    /** One page of {@code items} (oldest first) of a response's input in OpenAI's list shape. */
    Page page(List<ObjectNode> items) {
        return page(items, "in this response");
    }

    /** One page of {@code items} (oldest first) in OpenAI's list shape; {@code where} ends a bad cursor's message. */
    Page page(List<ObjectNode> items, String where) {
        var ordered = new ArrayList<>(items);
        if (descending) Collections.reverse(ordered);
        int start = after == null ? 0 : index(ordered, after, "after", where) + 1;
        int end = before == null ? ordered.size() : index(ordered, before, "before", where);
        if (end < start) end = start;
        int stop = Math.min(end, start + limit);
        return new Page(List.copyOf(ordered.subList(start, stop)), stop < end);
    }

    /** One page and whether more items follow it in this order. */
    record Page(List<ObjectNode> data, boolean hasMore) {
        ObjectNode toJson() {
            var body = Envelope.JSON.objectNode().put("object", "list");
            var array = body.putArray("data");
            data.forEach(array::add);
            body.put("first_id", data.isEmpty() ? null : data.getFirst().path("id").asText());
            body.put("last_id", data.isEmpty() ? null : data.getLast().path("id").asText());
            body.put("has_more", hasMore);
            return body;
        }
    }

    private static int index(List<ObjectNode> items, String id, String param, String where) {
        for (int i = 0; i < items.size(); i++) if (id.equals(items.get(i).path("id").asText())) return i;
        throw ApiError.badRequest("invalid_" + param, "Invalid '" + param + "': no item " + id + " " + where, param)
                .exception();
    }

    private static int limit(HttpExchange exchange) {
        return ListParameters.limit(exchange, DEFAULT_LIMIT, MAX_LIMIT);
    }

    private static String id(HttpExchange exchange, String name) {
        return exchange.query(name).map(String::trim).filter(v -> !v.isEmpty()).orElse(null);
    }
}
