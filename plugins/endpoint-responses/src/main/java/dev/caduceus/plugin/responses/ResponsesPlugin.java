package dev.caduceus.plugin.responses;

import dev.caduceus.support.idempotency.IdempotencyCache;
import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.PlatformPlugin;
import dev.caduceus.support.services.ResponseHistory;
import dev.caduceus.spi.http.EndpointFamily;
import dev.caduceus.spi.config.PluginConfig.Setting;
import dev.caduceus.spi.store.PluginDatabase;
import dev.caduceus.support.settings.SharedSettings;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The OpenAI Responses API: contributes the {@code responses} family ({@code POST} and {@code GET
 * /v1/responses}, {@code GET} and {@code DELETE /v1/responses/{response_id}}, {@code GET …/input_items})
 * over agent runs, with the conversation state kept in this plugin's SQLite tables, the
 * {@code conversations} family ({@code GET /api/conversations}, {@code DELETE
 * /api/conversations/{name}}) over its conversation names, and read access to those conversations
 * ({@link StoredHistory}) for other families. {@link #start} opens the store they share, fills the
 * list columns of rows from before V5 and marks the responses an earlier process left
 * {@code in_progress} as {@code incomplete}. While it runs, the stream leases of the responses this
 * process streams are renewed, and on a shared PostgreSQL the responses of a node that died mid-stream
 * are marked {@code incomplete} once their lease runs out ({@link ResponseStore#interruptAbandoned}).
 */
public final class ResponsesPlugin implements PlatformPlugin {
    private static final System.Logger LOG = System.getLogger(ResponsesPlugin.class.getName());

    /** How often a node looks for cancels of its background responses asked on another node. */
    private static final java.time.Duration CANCEL_POLL = java.time.Duration.ofMillis(250);

    private ResponsesSettings settings;

    /** What {@link ResponsesSettings} and {@link ProgressReasoning} read. */
    @Override
    public List<Setting> settings() {
        return List.of(Setting.integer("responses.max_stored", 10_000, 0,
                        "stored responses kept at most (the oldest go first; 0: none kept)"),
                Setting.integer("responses.event_retention_hours", 24, 0,
                        "a stored response's stream events are replayable this long"),
                Setting.integer("responses.background_queue", 1000, 0,
                        "background responses that may wait for a free run slot at once (one more is a 429)"),
                SharedSettings.IDEMPOTENCY_TTL, SharedSettings.IDEMPOTENCY_MAX_ENTRIES,
                SharedSettings.TOOL_PROGRESS, SharedSettings.TOOL_PROGRESS_EVENTS);
    }
    private ResponseStore store;
    private BackgroundResponses background;

    @Override
    public void start(PlatformContext ctx) {
        settings = ResponsesSettings.from(ctx);
        store = new ResponseStore(ctx.database(), ctx.json(), settings.maxStored(), ctx.clock(), ctx.webhooks());
        var filled = store.fillSummaries(); // rows saved before the list columns (V5), once
        if (filled > 0)
            LOG.log(System.Logger.Level.INFO, "{0} stored response(s) from before V5 got their list summary", filled);
        // Nothing streams yet in this process: on SQLite (no other process) a response left in_progress
        // belonged to one that died; on PostgreSQL only one whose stream lease ran out did, other nodes may
        // be streaming theirs.
        var recovered = store.interruptInProgress(shared(ctx) ? ctx.clock().instant() : Instant.MAX);
        if (!recovered.isEmpty())
            LOG.log(System.Logger.Level.WARNING, "{0} response(s) were streaming when the server stopped; "
                    + "marked incomplete: {1}", recovered.size(),
                    recovered.size() > 10 ? recovered.subList(0, 10) + " …" : recovered);
    }

    @Override
    public List<EndpointFamily> endpoints(PlatformContext ctx) {
        var idempotency = new IdempotencyCache(ctx.clock(), settings.idempotencyTtl(), settings.idempotencyEntries());
        var live = ConcurrentHashMap.<String>newKeySet(); // ids this process is streaming right now
        ctx.scheduler().scheduleWithFixedDelay("response-streams", ResponseStore.STREAM_RENEWAL,
                ResponseStore.STREAM_RENEWAL, () -> keepStreams(ctx, live));
        ctx.scheduler().scheduleWithFixedDelay("journal-retention", java.time.Duration.ofMinutes(1),
                java.time.Duration.ofHours(1), () -> store.pruneJournals(
                        ctx.clock().instant().minus(settings.eventRetention()).getEpochSecond()));
        var pending = new dev.caduceus.support.clienttools.PendingToolCalls(ctx.clock());
        var background = new BackgroundResponses(ctx, store, live, settings.backgroundQueue(), pending,
                ProgressReasoning.from(ctx).byDefault());
        this.background = background;
        if (shared(ctx)) { // a cancel asked on another node is a mark in the store
            ctx.scheduler().scheduleWithFixedDelay("background-cancels", CANCEL_POLL, CANCEL_POLL, background::pollCancels);
            ctx.scheduler().scheduleWithFixedDelay("background-stranded", ResponseStore.STREAM_RENEWAL,
                    ResponseStore.STREAM_RENEWAL, () -> background.sweepStranded(ctx.clock().instant()));
        } else { // the runs were taken over before the scheduler opens: what nothing resumed ends now
            ctx.scheduler().schedule("background-stranded", java.time.Duration.ZERO,
                    () -> background.sweepStranded(Instant.MAX));
        }
        var catalog = new ResponseCatalog(ctx.database());
        var resolver = new TurnResolver(ctx, store, pending);
        return List.of(new ResponsesFamily(new CreateHandler(ctx, store, idempotency, live, background, pending, resolver),
                        new ListHandler(catalog), new RetrieveHandler(ctx, store, live, settings.eventRetention()),
                        new DeleteHandler(store), new InputItemsHandler(store), new CancelHandler(ctx, store, background),
                        new InputTokensHandler(ctx, resolver), settings),
                new ConversationsFamily(new ConversationListHandler(catalog, store.conversationObjects()),
                        new ConversationDeleteHandler(store)),
                new ConversationObjectsFamily(new ConversationObjectsApi(store.conversationObjects())));
    }

    /**
     * Renews the stream leases of what this process streams; on a shared database, also ends the
     * responses another node left {@code in_progress} when it died.
     */
    private void keepStreams(PlatformContext ctx, java.util.Set<String> live) {
        var now = ctx.clock().instant();
        store.renewStreams(List.copyOf(live), now);
        if (!shared(ctx)) return;
        var recovered = store.interruptAbandoned(now);
        if (!recovered.isEmpty())
            LOG.log(System.Logger.Level.WARNING, "{0} response(s) were streaming on a node that stopped renewing their "
                    + "lease; marked incomplete: {1}", recovered.size(),
                    recovered.size() > 10 ? recovered.subList(0, 10) + " …" : recovered);
    }

    /** Several nodes may share the database (PostgreSQL); SQLite is this process's alone. */
    private static boolean shared(PlatformContext ctx) {
        return ctx.database().dialect() != PluginDatabase.Dialect.SQLITE;
    }

    /**
     * Stored conversations, for the runs API's {@code previous_response_id}; and the background responses' part in
     * resuming runs (the host tells it of each it took over).
     */
    @Override
    public List<Object> services(PlatformContext ctx) {
        return background == null ? List.of(new StoredHistory(store))
                : List.of(new StoredHistory(store), new BackgroundResumer(background));
    }
}
