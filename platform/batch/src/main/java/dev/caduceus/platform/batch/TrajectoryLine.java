package dev.caduceus.platform.batch;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.Set;

/**
 * What the merge and a resume by content need of one batch-file line, read with a streaming parser instead of a tree (a
 * trajectory is ~7 KB, a run 10⁵–10⁶ of them): whether it is one JSON object at all, a tombstone,
 * whether it called a tool that is not registered, and its {@code prompt_index} and prompt as
 * {@code JsonNode.asText()} would give them. Stateless.
 *
 * @param tombstone   it has a {@code discarded} key (a tombstone of the previous release)
 * @param unknownTool a {@code tool_stats} entry with {@code count > 0} names no registered tool
 * @param promptIndex {@code prompt_index} as text ({@code ""} when missing or not a scalar)
 * @param prompt      of a trajectory the first {@code human} turn's value, of a tombstone its
 *                    {@code prompt} string; null without one
 */
record TrajectoryLine(boolean tombstone, boolean unknownTool, String promptIndex, String prompt) {

    /** The line's facts, or null when it is not one JSON object (torn, or not JSON). */
    static TrajectoryLine read(String line, Set<String> registeredTools, JsonFactory factory) {
        try (var p = factory.createParser(line)) {
            if (p.nextToken() != JsonToken.START_OBJECT) return null;
            boolean tombstone = false, unknown = false;
            String index = "", human = null, tombstonePrompt = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                var name = p.currentName();
                var value = p.nextToken();
                switch (name) {
                    case "discarded" -> {
                        tombstone = true;
                        p.skipChildren();
                    }
                    case "prompt_index" -> index = scalarText(p, value);
                    case "tool_stats" -> {
                        if (value == JsonToken.START_OBJECT) unknown = unknownTool(p, registeredTools);
                        else p.skipChildren();
                    }
                    case "conversations" -> {
                        if (value == JsonToken.START_ARRAY) human = firstHuman(p);
                        else p.skipChildren();
                    }
                    case "prompt" -> {
                        tombstonePrompt = value == JsonToken.VALUE_STRING ? p.getText() : null;
                        p.skipChildren();
                    }
                    default -> p.skipChildren();
                }
            }
            return new TrajectoryLine(tombstone, unknown, index, tombstone ? tombstonePrompt : human);
        } catch (IOException e) {
            return null;
        }
    }

    /** {@code asText()} of the value at the parser: a scalar's text, {@code ""} for a container (skipped). */
    private static String scalarText(JsonParser p, JsonToken value) throws IOException {
        return switch (value) {
            case VALUE_STRING, VALUE_NUMBER_INT, VALUE_TRUE, VALUE_FALSE, VALUE_NULL -> p.getText();
            case VALUE_NUMBER_FLOAT -> String.valueOf(p.getDoubleValue());
            default -> {
                p.skipChildren();
                yield "";
            }
        };
    }

    /** Reads {@code tool_stats} to its end: whether a tool with {@code count > 0} is not registered. */
    private static boolean unknownTool(JsonParser p, Set<String> registeredTools) throws IOException {
        boolean unknown = false;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            var tool = p.currentName();
            if (p.nextToken() != JsonToken.START_OBJECT) {
                p.skipChildren();
                continue;
            }
            int count = 0;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                var field = p.currentName();
                var value = p.nextToken();
                if (field.equals("count") && value.isScalarValue()) count = p.getValueAsInt(0);
                else p.skipChildren();
            }
            if (count > 0 && !registeredTools.contains(tool)) unknown = true;
        }
        return unknown;
    }

    /** Reads {@code conversations} to its end: the value of the first turn whose {@code from} is {@code human}. */
    private static String firstHuman(JsonParser p) throws IOException {
        String found = null;
        for (var turn = p.nextToken(); turn != JsonToken.END_ARRAY; turn = p.nextToken()) {
            if (turn != JsonToken.START_OBJECT) {
                p.skipChildren();
                continue;
            }
            String from = "", value = "";
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                var field = p.currentName();
                var token = p.nextToken();
                if (field.equals("from")) from = scalarText(p, token);
                else if (field.equals("value")) value = scalarText(p, token);
                else p.skipChildren();
            }
            if (found == null && from.equals("human")) found = value;
        }
        return found;
    }
}
