package dev.caduceus.plugin.responses;

import static java.util.Objects.requireNonNull;

/**
 * Where a stored transcript ends: the messages of chain {@code chainId} with {@code seq <= lastSeq}
 * (seq starts at 1). Immutable.
 *
 * @param chainId the chain shared by the responses that continue one another
 * @param lastSeq the last message of the transcript; 0 for an empty one
 */
record ChainPosition(String chainId, long lastSeq) {
    ChainPosition {
        requireNonNull(chainId, "chainId");
        if (lastSeq < 0) throw new IllegalArgumentException("lastSeq < 0");
    }
}
