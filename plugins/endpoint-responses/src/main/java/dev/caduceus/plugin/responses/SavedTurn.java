package dev.caduceus.plugin.responses;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.message.Message;
import java.util.List;

/**
 * What a response's stream needs of its turn to save the response as it goes: the response's fixed parts, its owner
 * and conversation, and its transcript write. A turn as a create resolved it ({@link ResolvedTurn}), or as the store
 * keeps it for a background response taken over after its server stopped ({@link StoredTurn}).
 */
interface SavedTurn {
    Envelope envelope();

    /** The key the response belongs to. */
    String owner();

    /** The conversation the turn continues (a name or a {@code conv_…} id), or null. */
    String conversation();

    /** The store row for {@code body} (its transcript is written from {@link #write}). */
    StoredResponse snapshot(ObjectNode body, long createdAt);

    /** The chain write of this turn: its input messages, then {@code produced}. */
    TranscriptWrite write(List<Message> produced);
}
