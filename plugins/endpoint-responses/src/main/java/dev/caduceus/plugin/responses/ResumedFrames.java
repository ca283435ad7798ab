package dev.caduceus.plugin.responses;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a response's stream had sent, read back from its journal, for the node that takes over its run after its
 * server stopped ({@link ResponseStream#resumeDetached}). Immutable.
 *
 * @param items      the output items by output index, each as its last frame showed it
 * @param text       the text sent so far of the message still in progress ("" without one)
 * @param summaries  the summary text of each reasoning item still in progress, by output index
 * @param nextSeq    the number of the next frame
 * @param inProgress whether {@code response.in_progress} was sent (else the server stopped before the run began)
 * @param ended      whether a terminal frame was sent
 */
record ResumedFrames(List<ObjectNode> items, String text, Map<Integer, String> summaries, long nextSeq,
                     boolean inProgress, boolean ended) {
    ResumedFrames {
        items = List.copyOf(items);
        summaries = Map.copyOf(summaries);
    }

    /** Reads {@code frames} (a response's journal, in order); a frame that does not parse is skipped. */
    static ResumedFrames read(List<ResponseStore.Frame> frames, ObjectMapper json) {
        var items = new ArrayList<ObjectNode>();
        var texts = new HashMap<String, StringBuilder>();
        var summaries = new LinkedHashMap<Integer, StringBuilder>();
        long next = 0;
        boolean inProgress = false;
        boolean ended = false;
        for (var frame : frames) {
            next = frame.seq() + 1;
            JsonNode data;
            try {
                data = json.readTree(frame.json());
            } catch (Exception e) {
                continue;
            }
            int index = data.path("output_index").asInt(-1);
            switch (frame.type()) {
                case "response.in_progress" -> inProgress = true;
                case "response.output_item.added", "response.output_item.done" -> {
                    if (!(data.path("item") instanceof ObjectNode item) || index < 0) continue;
                    while (items.size() <= index) items.add(Envelope.JSON.objectNode());
                    items.set(index, item);
                    if (frame.type().endsWith(".done")) summaries.remove(index);
                    else if (item.path("type").asText().equals("reasoning")) summaries.put(index, new StringBuilder());
                }
                case "response.output_text.delta" ->
                        texts.computeIfAbsent(data.path("item_id").asText(), k -> new StringBuilder())
                                .append(data.path("delta").asText());
                case "response.reasoning_summary_text.delta" -> {
                    var summary = summaries.get(index);
                    if (summary != null) summary.append(data.path("delta").asText());
                }
                default -> ended |= JournalFollower.TERMINAL.contains(frame.type());
            }
        }
        var open = items.stream().filter(i -> i.path("type").asText().equals("message")
                && i.path("status").asText().equals("in_progress")).findFirst();
        var text = open.map(i -> texts.getOrDefault(i.path("id").asText(), new StringBuilder()).toString()).orElse("");
        var summaryTexts = new LinkedHashMap<Integer, String>();
        summaries.forEach((i, s) -> summaryTexts.put(i, s.toString()));
        return new ResumedFrames(items, text, summaryTexts, next, inProgress, ended);
    }
}
