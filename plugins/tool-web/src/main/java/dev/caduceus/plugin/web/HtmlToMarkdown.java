package dev.caduceus.plugin.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.jsoup.nodes.Comment;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.jsoup.nodes.Node;
import org.jsoup.nodes.TextNode;

/**
 * Turns an HTML document into readable Markdown: {@code script}, {@code style},
 * {@code noscript}, {@code nav}, {@code footer}, {@code aside}, forms and comments are dropped;
 * headings ({@code #}), paragraphs, lists ({@code -}, {@code 1.}), links ({@code [text](url)},
 * absolute), images other than {@code data:} ({@code ![alt](url)}), code ({@code `x`} and fenced
 * blocks), block quotes and tables are kept; whitespace is collapsed. Stateless.
 */
final class HtmlToMarkdown {
    private static final String DROPPED = "script, style, noscript, nav, footer, aside, form, template, iframe, "
            + "svg, canvas, button, select, input, textarea, head";
    private static final Set<String> BLOCKS = Set.of("p", "div", "section", "article", "main", "header", "body",
            "html", "figure", "figcaption", "address", "details", "summary", "dl", "dt", "dd", "center", "hgroup",
            "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "pre", "table", "blockquote", "hr");
    private static final Pattern SPACES = Pattern.compile("\\s+");
    private static final Pattern BLANK_LINES = Pattern.compile("\n{3,}");

    private HtmlToMarkdown() {}

    /** The document's {@code <title>}, whitespace collapsed; empty when absent. */
    static String title(Document doc) {
        return SPACES.matcher(doc.title()).replaceAll(" ").strip();
    }

    /** The document's body as Markdown. Mutates {@code doc} (drops the removed elements). */
    static String convert(Document doc) {
        doc.select(DROPPED).remove();
        removeComments(doc);
        var root = doc.body() == null ? doc : doc.body();
        var text = String.join("\n\n", blocks(root));
        return BLANK_LINES.matcher(text).replaceAll("\n\n").strip();
    }

    private static void removeComments(Node node) {
        for (var child : new ArrayList<>(node.childNodes())) {
            if (child instanceof Comment) child.remove();
            else removeComments(child);
        }
    }

    /** The children of {@code container} as Markdown blocks: inline runs become paragraphs. */
    private static List<String> blocks(Element container) {
        var out = new ArrayList<String>();
        var inline = new StringBuilder();
        for (var node : container.childNodes()) {
            if (node instanceof Element e && BLOCKS.contains(e.normalName())) {
                flush(inline, out);
                var block = block(e);
                if (!block.isBlank()) out.add(block);
            } else {
                inline(node, inline);
            }
        }
        flush(inline, out);
        return out;
    }

    private static void flush(StringBuilder inline, List<String> out) {
        var text = tidy(inline.toString());
        if (!text.isEmpty()) out.add(text);
        inline.setLength(0);
    }

    /** Trims every line and drops empty ones (line breaks come from {@code <br>} only). */
    private static String tidy(String s) {
        return s.lines().map(String::strip).filter(l -> !l.isEmpty()).reduce((a, b) -> a + "\n" + b).orElse("");
    }

    private static String block(Element e) {
        var name = e.normalName();
        return switch (name) {
            case "h1", "h2", "h3", "h4", "h5", "h6" -> {
                var text = inlineText(e).replace('\n', ' ');
                yield text.isEmpty() ? "" : "#".repeat(name.charAt(1) - '0') + " " + text;
            }
            case "ul", "ol" -> list(e, name.equals("ol"));
            case "pre" -> "```\n" + e.wholeText().stripTrailing().replaceAll("^\n+", "") + "\n```";
            case "table" -> table(e);
            case "blockquote" -> prefixLines(String.join("\n\n", blocks(e)), "> ", "> ");
            case "hr" -> "---";
            default -> String.join("\n\n", blocks(e));
        };
    }

    private static String list(Element list, boolean ordered) {
        var items = new ArrayList<String>();
        int n = 1;
        for (var item : list.children()) {
            var content = item.normalName().equals("li") ? String.join("\n", blocks(item)) : block(item);
            if (content.isBlank()) continue;
            var marker = ordered ? (n++) + ". " : "- ";
            items.add(prefixLines(content, marker, " ".repeat(marker.length())));
        }
        return String.join("\n", items);
    }

    private static String table(Element table) {
        var rows = new ArrayList<String>();
        for (var tr : table.select("tr")) {
            if (tr.closest("table") != table) continue; // a nested table's row
            var cells = new ArrayList<String>();
            for (var cell : tr.children())
                if (cell.normalName().equals("td") || cell.normalName().equals("th"))
                    cells.add(inlineText(cell).replace('\n', ' ').replace("|", "\\|"));
            if (cells.isEmpty()) continue;
            rows.add("| " + String.join(" | ", cells) + " |");
            if (rows.size() == 1) rows.add("|" + " --- |".repeat(cells.size()));
        }
        return String.join("\n", rows);
    }

    private static String prefixLines(String text, String first, String rest) {
        var lines = text.split("\n", -1);
        var out = new StringBuilder();
        for (int i = 0; i < lines.length; i++) {
            if (i > 0) out.append('\n');
            var prefix = i == 0 ? first : rest;
            out.append(lines[i].isEmpty() ? prefix.stripTrailing() : prefix + lines[i]);
        }
        return out.toString();
    }

    private static String inlineText(Element e) {
        var sb = new StringBuilder();
        for (var child : e.childNodes()) inline(child, sb);
        return tidy(sb.toString());
    }

    /** Appends {@code node} as inline Markdown; block elements nested in inline ones are flattened. */
    private static void inline(Node node, StringBuilder out) {
        if (node instanceof TextNode t) {
            out.append(SPACES.matcher(t.getWholeText()).replaceAll(" "));
            return;
        }
        if (!(node instanceof Element e)) return;
        switch (e.normalName()) {
            case "br" -> out.append('\n');
            case "a" -> link(e, out);
            case "img" -> image(e, out);
            case "code", "kbd", "samp", "tt" -> {
                var code = SPACES.matcher(e.text()).replaceAll(" ").strip();
                if (!code.isEmpty()) out.append('`').append(code).append('`');
            }
            case "strong", "b" -> wrap(e, "**", out);
            case "em", "i" -> wrap(e, "*", out);
            default -> {
                boolean block = BLOCKS.contains(e.normalName());
                if (block) out.append(' ');
                for (var child : e.childNodes()) inline(child, out);
                if (block) out.append(' ');
            }
        }
    }

    private static void wrap(Element e, String mark, StringBuilder out) {
        var text = inlineText(e).replace('\n', ' ');
        if (!text.isEmpty()) out.append(mark).append(text).append(mark);
    }

    private static void link(Element a, StringBuilder out) {
        var text = inlineText(a).replace('\n', ' ');
        var href = a.absUrl("href");
        if (href.isEmpty() || href.startsWith("javascript:")) {
            out.append(text);
        } else if (!text.isEmpty()) {
            out.append('[').append(text).append("](").append(href).append(')');
        }
    }

    private static void image(Element img, StringBuilder out) {
        var src = img.attr("src").strip();
        if (src.isEmpty() || src.regionMatches(true, 0, "data:", 0, 5)) return;
        var abs = img.absUrl("src");
        out.append("![").append(SPACES.matcher(img.attr("alt")).replaceAll(" ").strip()).append("](")
                .append(abs.isEmpty() ? src : abs).append(')');
    }
}
