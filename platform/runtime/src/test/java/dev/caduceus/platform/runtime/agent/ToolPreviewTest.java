package dev.caduceus.platform.runtime.agent;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The output preview of a tool result ({@code tool.completed}'s {@code output_preview}). */
class ToolPreviewTest {
    static final String SERVER_KEY = "server-key-0123456789abcdef";
    static final String UPSTREAM_KEY = "sk-proj-Ab3dEf9hIjK1mN0pQr5tUvWxYz";
    static final Redactor REDACTOR = Redactor.of(List.of(SERVER_KEY, UPSTREAM_KEY));

    @Test
    void secretsInTheResultAreRedacted() {
        var preview = ToolPreview.output("{\"output\": \"OPENAI_API_KEY=" + UPSTREAM_KEY + "\\nAPI_SERVER_KEY="
                + SERVER_KEY + "\\n\", \"exit_code\": 0}", REDACTOR);
        assertEquals("{\"output\": \"OPENAI_API_KEY=[REDACTED]\\nAPI_SERVER_KEY=[REDACTED]\\n\", \"exit_code\": 0}",
                preview);
    }

    @Test
    void aSecretInALongResultIsRedactedBeforeTheCutSoNoPartOfItShows() {
        // the key starts 5 characters before the cut: cutting first would leave "sk-pr"
        var result = "x".repeat(194) + UPSTREAM_KEY + " and more";
        var preview = ToolPreview.output(result, REDACTOR);
        assertEquals("x".repeat(194) + "[REDA…", preview);
        assertFalse(preview.contains("sk-"), preview);
    }

    @Test
    void base64WrappedOverLinesIsRedactedBeforeTheLinesAreJoined() {
        // `env | base64`: the encoded key straddles the first line break, which the preview turns into a space
        var prefix = "HOME=/root\nPATH=/usr/bin:/bin\nTERM=xterm\nOPENAI_API_KEY=";
        var encoded = Base64.getMimeEncoder(76, "\n".getBytes(UTF_8))
                .encodeToString((prefix + UPSTREAM_KEY + "\nUSER=root\n").getBytes(UTF_8));
        assertTrue(encoded.contains("\n"));
        var joined = encoded.replace('\n', ' ');
        assertEquals(joined, REDACTOR.redact(joined), "joined, the redactor no longer sees it");
        var preview = ToolPreview.output(encoded, REDACTOR);
        assertTrue(preview.contains(Redactor.MASK), preview);
        assertFalse(preview.contains("\n"), preview);
    }

    @Test
    void whitespaceIsCollapsedAndTrimmed() {
        assertEquals("total 8 drwxr-xr-x 2 . -rw-r--r-- 1 a.txt",
                ToolPreview.output("\n  total 8\r\ndrwxr-xr-x  2 .\n\t-rw-r--r-- 1 a.txt\n\n", REDACTOR));
    }

    @Test
    void cutTo200CharactersEndingWithAnEllipsis() {
        assertEquals("a".repeat(200), ToolPreview.output("a".repeat(200), REDACTOR), "200 fit");
        var cut = ToolPreview.output("a".repeat(500), REDACTOR);
        assertEquals("a".repeat(199) + "…", cut);
        assertEquals(200, cut.length());
        // code points: an emoji at the cut is kept whole, never half a surrogate pair
        var emoji = ToolPreview.output("b".repeat(198) + "😀😀😀", REDACTOR);
        assertEquals("b".repeat(198) + "😀…", emoji);
        assertEquals(200, emoji.codePointCount(0, emoji.length()));
    }

    @Test
    void nullWhenTheResultHasNoText() {
        assertNull(ToolPreview.output(null, REDACTOR));
        assertNull(ToolPreview.output("", REDACTOR));
        assertNull(ToolPreview.output(" \n\t ", REDACTOR));
    }
}
