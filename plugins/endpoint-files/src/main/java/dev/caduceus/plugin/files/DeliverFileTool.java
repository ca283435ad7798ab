package dev.caduceus.plugin.files;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolCall;
import dev.caduceus.spi.tool.ToolContext;
import dev.caduceus.spi.tool.ToolResult;
import dev.caduceus.spi.tool.ToolRisk;
import dev.caduceus.spi.tool.ToolSpec;
import dev.caduceus.support.files.WorkspaceFiles;
import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * {@code deliver_file} (toolset {@code files}): the agent hands a file of the workspace to the user. It is stored
 * as a file of the turn's key (purpose {@code assistants_output}, under the same size limit and quota as an
 * upload, expiring with the session retention) and named by the run, so that {@code GET /v1/runs/{id}/artifacts}
 * lists it; the agent gets its id and download path to tell the user. The path is the agent's: it is opened
 * inside the workspace without following links ({@link WorkspaceFiles}). Thread-safe.
 */
final class DeliverFileTool implements Tool {
    static final String NAME = dev.caduceus.support.services.FileLibrary.DELIVER_TOOL;
    static final String TOOLSET = "files";
    static final String PURPOSE = "assistants_output";

    private final FileIntake intake;
    private final Duration keep;
    private final ObjectMapper json = new ObjectMapper();
    private final ToolSpec spec;

    DeliverFileTool(FileIntake intake, Duration keep) {
        this.intake = intake;
        this.keep = keep;
        var parameters = JsonNodeFactory.instance.objectNode().put("type", "object");
        parameters.putObject("properties").putObject("path").put("type", "string")
                .put("description", "The file to deliver, in the workspace (e.g. outputs/chart.png)");
        parameters.putArray("required").add("path");
        this.spec = new ToolSpec(NAME, "Deliver a file you made to the user: it is stored and the user can download "
                + "it. Give the path of a file in the workspace; you get its file id and download path to tell the user.",
                parameters, TOOLSET, List.of(), ToolRisk.READ_ONLY, 2_000, true, false, "📎");
    }

    @Override
    public ToolSpec spec() {
        return spec;
    }

    @Override
    public ToolResult call(ToolCall call, ToolContext ctx) throws IOException {
        var owner = ctx.owner();
        if (owner == null) return new ToolResult.Error("Files cannot be delivered here (no key owns this turn)", false);
        var path = call.arguments().path("path").asText("");
        var relative = WorkspaceFiles.relative(ctx.workspace(), path);
        if (relative.isEmpty()) return new ToolResult.Error("Not a file in the workspace: " + path, false);
        var delivery = intake.keepRunFile(owner, ctx.runId(), ctx.workspace(), relative.get(), keep, (name, bytes) -> false);
        if (delivery.isEmpty())
            return new ToolResult.Error("No regular file at " + relative.get() + " in the workspace (links are not followed)", false);
        var name = delivery.get().name();
        return switch (delivery.get().outcome()) {
            case FileIntake.Outcome.Kept kept -> {
                ObjectNode out = json.createObjectNode().put("file_id", kept.file().id()).put("filename", name)
                        .put("bytes", kept.file().bytes()).put("download", "/v1/files/" + kept.file().id() + "/content");
                yield new ToolResult.Ok(out.toString());
            }
            case FileIntake.Outcome.TooLarge large -> new ToolResult.Error("The file is larger than the "
                    + large.limit() + " bytes this server keeps for one file", false);
            case FileIntake.Outcome.OverQuota over -> new ToolResult.Error("The user's files are full (" + over.used()
                    + " of " + over.quota() + " bytes); the file was not delivered", false);
        };
    }
}
