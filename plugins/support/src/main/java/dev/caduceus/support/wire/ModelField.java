package dev.caduceus.support.wire;

import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.http.Caller;
import dev.caduceus.spi.http.HttpStatusException;

/**
 * What a request's {@code model} means for the run it starts, the same on chat, Responses and runs: absent or the
 * advertised name is the default route (null: the configured model); a model route's name ({@code model.routes})
 * picks that route; any other name goes on as it is when {@code passOn} (the endpoint's rule: {@code /v1/runs},
 * a body with {@code provider}, {@code model.direct_model_requests}) and is otherwise ignored, since generic clients
 * hard-code names such as {@code gpt-4o}; with {@code model.strict_names: true} such a name is refused instead, as
 * OpenAI refuses a model it does not have. A key limited to some routes ({@code --models}) gets that same 404 for
 * the others. Stateless.
 */
public final class ModelField {
    private ModelField() {}

    /**
     * The run's model for {@code requested}: null, a route's name, or a name to pass on.
     *
     * @throws HttpStatusException 404 {@code model_not_found} for an unknown name under {@code model.strict_names}
     */
    public static String resolve(PlatformContext ctx, Caller caller, String requested, boolean passOn) {
        if (requested == null || requested.isBlank() || requested.equals(ctx.global().modelName())
                || caller.modelName().filter(requested::equals).isPresent()) return null;
        if (ctx.models().routes().contains(requested)) {
            if (caller.mayUseModel(requested)) return requested;
            throw notFound(ctx, caller, requested); // a route this key may not use: as if there were none
        }
        if (ctx.section("model").bool("strict_names", false)) throw notFound(ctx, caller, requested);
        return passOn ? requested : null;
    }

    private static HttpStatusException notFound(PlatformContext ctx, Caller caller, String requested) {
        return ApiError.notFound("model_not_found", "The model `" + requested + "` does not exist or you do not have "
                + "access to it. Models here: " + String.join(", ", names(ctx, caller))).exception();
    }

    /** The advertised name (the key's own, when its policy sets one) and the routes {@code caller} may use. */
    public static java.util.List<String> names(PlatformContext ctx, Caller caller) {
        var names = new java.util.ArrayList<String>();
        names.add(caller.modelName().orElse(ctx.global().modelName()));
        ctx.models().routes().stream().filter(r -> !names.contains(r) && caller.mayUseModel(r)).forEach(names::add);
        return names;
    }
}
