package dev.caduceus.plugin.chat;

import dev.caduceus.spi.http.Caller;
import dev.caduceus.spi.http.HttpExchange;
import dev.caduceus.support.services.FileLibrary;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The end of a chat answer whose agent delivered files ({@code deliver_file}): a Markdown list of links that chat
 * front-ends render and a browser can follow without the key (signed, {@link FileLibrary#downloadLink}), on the
 * origin the request came to. Looked up only when the turn called the tool, so other turns pay nothing.
 * Confined to one request.
 */
final class DeliveredLinks {
    private static final Pattern HOST = Pattern.compile("[A-Za-z0-9.\\-]+(:[0-9]{1,5})?|\\[[0-9A-Fa-f:.]+\\](:[0-9]{1,5})?");

    private final Optional<FileLibrary> library;
    private final Caller caller;
    private final String origin;

    DeliveredLinks(Optional<FileLibrary> library, Caller caller, String origin) {
        this.library = library;
        this.caller = caller;
        this.origin = origin;
    }

    /** For {@code exchange}: its caller, and its origin ({@code X-Forwarded-Proto} and {@code Host}). */
    static DeliveredLinks of(Optional<FileLibrary> library, HttpExchange exchange) {
        var host = exchange.header("Host").map(String::strip).filter(h -> HOST.matcher(h).matches()).orElse(null);
        var scheme = exchange.header("X-Forwarded-Proto").map(String::strip).filter(p -> p.equals("https")).orElse("http");
        return new DeliveredLinks(library, exchange.caller(), host == null ? "" : scheme + "://" + host);
    }

    /** The footer for run {@code runId}'s delivered files; empty when there are none. */
    Optional<String> footer(String runId) {
        if (library.isEmpty() || !library.get().keptFor(runId)) return Optional.empty();
        var files = library.get().delivered(caller.name(), caller.admin(), runId);
        if (files.isEmpty()) return Optional.empty();
        var out = new StringBuilder("\n\n**Files**\n");
        for (var file : files)
            out.append("- [").append(file.filename().replaceAll("[\\[\\]()\\\\]", "_")).append("](").append(origin)
                    .append(library.get().downloadLink(file.id())).append(")\n");
        return Optional.of(out.toString());
    }
}
