package dev.caduceus.plugin.mcp;

import dev.caduceus.spi.config.ConfigException;
import java.util.ArrayList;
import java.util.List;

/**
 * An {@code args} string split into words as a POSIX shell would, without expanding anything: blanks
 * separate words, single quotes keep everything literally, double quotes keep blanks (a backslash
 * escapes {@code "} and {@code \} inside them), a backslash outside quotes escapes the next character.
 * Hermes accepts {@code args: "-y @scope/server /data"} as well as a list. Stateless.
 */
final class ShellWords {
    private ShellWords() {}

    /** The words of {@code text}; an unclosed quote is a {@link ConfigException} naming {@code key}. */
    static List<String> split(String text, String key) {
        var words = new ArrayList<String>();
        var word = new StringBuilder();
        boolean inWord = false;
        char quote = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quote == '\'') {
                if (c == '\'') quote = 0; else word.append(c);
            } else if (quote == '"') {
                if (c == '"') quote = 0;
                else if (c == '\\' && i + 1 < text.length() && (text.charAt(i + 1) == '"' || text.charAt(i + 1) == '\\'))
                    word.append(text.charAt(++i));
                else word.append(c);
            } else if (c == '\'' || c == '"') {
                quote = c;
                inWord = true;
            } else if (c == '\\' && i + 1 < text.length()) {
                word.append(text.charAt(++i));
                inWord = true;
            } else if (Character.isWhitespace(c)) {
                if (inWord) words.add(word.toString());
                word.setLength(0);
                inWord = false;
            } else {
                word.append(c);
                inWord = true;
            }
        }
        if (quote != 0) throw new ConfigException(key, key + " has an unclosed " + quote + " quote");
        if (inWord) words.add(word.toString());
        return List.copyOf(words);
    }
}
