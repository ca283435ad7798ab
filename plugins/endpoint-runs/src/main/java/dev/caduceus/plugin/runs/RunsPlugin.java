package dev.caduceus.plugin.runs;

import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.PlatformPlugin;
import dev.caduceus.spi.http.EndpointFamily;
import java.util.List;

/**
 * The runs API: contributes the {@code runs} family (submit, list, status, events, approval, steer,
 * stop under {@code /v1/runs}) over the host's durable run service. The host owns the journal, the
 * status records and the idempotency keys; this plugin only validates and translates.
 *
 * <p>Threading: the platform calls {@link #endpoints} once on the boot thread; the family's handlers
 * then run concurrently, one virtual thread per request.
 */
public final class RunsPlugin implements PlatformPlugin {

    @Override
    public List<EndpointFamily> endpoints(PlatformContext ctx) {
        return List.of(new RunsFamily(ctx, RunsSettings.from(ctx)));
    }
}
