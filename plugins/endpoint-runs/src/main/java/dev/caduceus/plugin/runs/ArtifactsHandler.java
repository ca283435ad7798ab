package dev.caduceus.plugin.runs;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.http.HttpExchange;
import dev.caduceus.spi.http.HttpHandler;
import dev.caduceus.support.services.FileLibrary;
import java.util.List;

/**
 * {@code GET /v1/runs/{run_id}/artifacts}: the files the run's agent delivered ({@code deliver_file}), each with its
 * file id and download path ({@code GET /v1/files/{id}/content}); an empty list where no plugin keeps files. Another
 * key's run or an unknown one is 404, as for the run itself. Thread-safe.
 */
final class ArtifactsHandler implements HttpHandler {
    private final PlatformContext ctx;

    ArtifactsHandler(PlatformContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void handle(HttpExchange exchange) {
        var id = exchange.pathParam("run_id");
        var record = OwnedRuns.require(ctx.runs(), exchange, id);
        var caller = exchange.caller();
        var files = ctx.service(FileLibrary.class).map(l -> l.delivered(caller.name(), caller.admin(), record.runId()))
                .orElse(List.of());
        var body = JsonNodeFactory.instance.objectNode().put("object", "list");
        var data = body.putArray("data");
        for (var file : files)
            data.addObject().put("file_id", file.id()).put("object", "run.artifact").put("filename", file.filename())
                    .put("bytes", file.bytes()).put("content_type", file.contentType())
                    .put("download", "/v1/files/" + file.id() + "/content");
        exchange.respond(200, body);
    }
}
