package dev.caduceus.platform.server;

import dev.caduceus.platform.host.boot.BootException;
import dev.caduceus.platform.host.boot.BootMode;
import dev.caduceus.platform.runtime.agent.AgentServices;
import dev.caduceus.platform.runtime.assembly.Assembly;
import dev.caduceus.platform.runtime.routing.Deployment;
import dev.caduceus.platform.runtime.routing.Route;
import dev.caduceus.platform.runtime.spend.SpendLedger;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.model.ModelEvent;
import dev.caduceus.spi.model.ModelException;
import dev.caduceus.spi.model.ModelOptions;
import dev.caduceus.spi.model.ModelRequest;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code caduceus models test [ROUTE]}: calls each deployment of a model route (of every route, without one) once,
 * as the server would, and prints how each answered: its latency, its first words and usage, or its error. Boots the
 * plugins against a scratch database, as {@code caduceus plugins} does. Exit status 0 when every deployment answered,
 * 1 when one did not, 2 when no route has that name.
 */
@Command(name = "models", mixinStandardHelpOptions = true,
        description = {"The model routes of model.routes and model.deployments (docs/models.md).",
                "Calls the upstreams as the server would, against a scratch database."},
        subcommands = {ModelsCommand.Test.class})
final class ModelsCommand implements Callable<Integer> {
    static final String PROMPT = "Reply with the single word OK.";

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @CommandLine.ParentCommand Main main;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return 2;
    }

    @Command(name = "test", mixinStandardHelpOptions = true,
            description = {"Call each deployment of ROUTE once (of every route when none is named) with a one-line prompt, "
                    + "and print its latency and answer or its error.",
                    "Exit status 0 when every deployment answered, 1 when one did not, 2 when no route has that name."})
    static final class Test implements Callable<Integer> {
        @Parameters(paramLabel = "ROUTE", arity = "0..1",
                description = "a route's name (model.routes), or the advertised model name for the default route")
        String route;
        @CommandLine.Mixin Main.ConfigOptions options = new Main.ConfigOptions();
        @CommandLine.ParentCommand ModelsCommand models;
        @CommandLine.Spec CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws BootException {
            var out = spec.commandLine().getOut();
            try (var boot = Assembly.assemble(options.toPlatformOptions(List.of(), models.main.env()), new BootMode.Scratch())) {
                var config = boot.config();
                var env = config.dotenv().under(models.main.env());
                var table = AgentServices.routeTable(config, boot.registries(), env);
                List<Route> routes;
                if (route == null) {
                    routes = table.all();
                } else {
                    var named = table.route(route);
                    if (named.isEmpty()) {
                        out.println("No model route '" + route + "' (routes: " + String.join(", ", table.names()) + ").");
                        out.flush();
                        return 2;
                    }
                    routes = List.of(named.get());
                }
                int failed = 0;
                out.printf("%-28s %-28s %-8s %8s  %s%n", "DEPLOYMENT", "MODEL", "RESULT", "TIME", "ANSWER");
                for (var r : routes)
                    for (var d : r.deployments()) if (!probe(out, d)) failed++;
                out.flush();
                return failed == 0 ? 0 : 1;
            }
        }

        private static boolean probe(PrintWriter out, Deployment d) {
            var request = new ModelRequest(d.model(), List.of(Message.user(PROMPT)), List.of(), ModelOptions.DEFAULTS, false);
            var text = new StringBuilder();
            var usage = new Usage[1];
            long started = System.nanoTime();
            try {
                d.probe(request, event -> {
                    switch (event) {
                        case ModelEvent.TextDelta t -> text.append(t.text());
                        case ModelEvent.UsageReport u -> usage[0] = u.usage();
                        default -> { }
                    }
                }, new dev.caduceus.platform.runtime.agent.RunCancellation());
                long ms = (System.nanoTime() - started) / 1_000_000;
                var answer = text.toString().strip().replaceAll("\\s+", " ");
                if (answer.length() > 60) answer = answer.substring(0, 57) + "...";
                var tokens = usage[0] == null ? "no usage reported" : usage[0].inputTokens() + "+" + usage[0].outputTokens()
                        + " tokens, " + SpendLedger.usd(d.price().cost(usage[0])) + " USD";
                out.printf("%-28s %-28s %-8s %6d ms  \"%s\" (%s)%n", d.name(), d.model(), "ok", ms, answer, tokens);
                return true;
            } catch (ModelException e) {
                long ms = (System.nanoTime() - started) / 1_000_000;
                var status = e.status() > 0 ? Integer.toString(e.status()) : "error";
                out.printf("%-28s %-28s %-8s %6d ms  %s%n", d.name(), d.model(), "failed", ms,
                        status + ": " + String.valueOf(e.getMessage()).strip());
                return false;
            } catch (RuntimeException e) {
                out.printf("%-28s %-28s %-8s %8s  %s%n", d.name(), d.model(), "failed", "-", e.getMessage());
                return false;
            }
        }
    }
}
