package dev.caduceus.plugin.responses;

import dev.caduceus.spi.message.Message;
import java.util.List;

/**
 * What a save adds to the chain store. Immutable.
 *
 * @param parent where the history ends in the chain this turn continues, or null for a new chain
 *               (no chain, explicit {@code conversation_history}, or a V1 row without a chain)
 * @param prior  the history as the turn read it: written as the start of a new chain when
 *               {@code parent} is null or has meanwhile been removed, otherwise unused
 * @param own    this turn's input messages and the messages the run produced
 * @param inputs how many of {@code own} are the turn's input (the first ones)
 */
record TranscriptWrite(ChainPosition parent, List<Message> prior, List<Message> own, int inputs) {
    TranscriptWrite {
        prior = List.copyOf(prior);
        own = List.copyOf(own);
        if (inputs < 0 || inputs > own.size()) throw new IllegalArgumentException("inputs out of range: " + inputs);
    }
}
