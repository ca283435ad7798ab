package dev.caduceus.plugin.runs;

/** Cuts text to a number of chars without splitting a surrogate pair. Stateless. */
final class TextLimit {
    private TextLimit() {}

    static String cut(String text, int max) {
        if (text.length() <= max) return text;
        int end = Character.isHighSurrogate(text.charAt(max - 1)) ? max - 1 : max;
        return text.substring(0, end);
    }
}
