package dev.caduceus.platform.batch;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * 64 bits of the SHA-256 of a prompt, or of a prompt index and its prompt: what the merge (duplicates)
 * and a resume by content (prompts already recorded) remember instead of the text. Two different
 * prompts share a fingerprint with odds of about n²/2⁶⁵ (below 10⁻⁷ at a million prompts). Stateless.
 */
final class PromptFingerprint {
    private PromptFingerprint() {}

    /** Of a prompt (a resume compares stripped prompts). */
    static long of(String prompt) {
        return sha256(prompt);
    }

    /** Of one trajectory's identity in the merge: its {@code prompt_index} value and its prompt. */
    static long of(String promptIndex, String prompt) {
        return sha256(promptIndex + '\u0000' + prompt);
    }

    private static long sha256(String text) {
        try {
            var digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return ByteBuffer.wrap(digest).getLong();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
