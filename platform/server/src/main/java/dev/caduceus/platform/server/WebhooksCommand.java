package dev.caduceus.platform.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.host.boot.BootException;
import dev.caduceus.platform.host.boot.BootSteps;
import dev.caduceus.platform.host.boot.Version;
import dev.caduceus.platform.host.config.PlatformConfig;
import dev.caduceus.platform.host.outbound.OutboundClient;
import dev.caduceus.platform.host.webhooks.DeliveryOutcome;
import dev.caduceus.platform.host.webhooks.WebhookMessage;
import dev.caduceus.platform.host.webhooks.WebhookSender;
import dev.caduceus.platform.host.webhooks.WebhookSigner;
import java.net.URI;
import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caduceus webhooks test URL}: sends one signed {@code webhook.test} message to {@code URL} the way the
 * server sends its webhooks (Standard Webhooks headers, the egress policy, no redirects, 5 s to connect and
 * 10 s in all), signed with the secret of the configured endpoint with that URL, else {@code webhooks.secret}.
 * Exit status 0 when the receiver answered 2xx, 1 when it did not, 2 when there is no secret to sign with.
 */
@Command(name = "webhooks", mixinStandardHelpOptions = true,
        description = {"Webhooks (the webhooks section of config.yaml): send a signed test message to a receiver."},
        subcommands = {WebhooksCommand.Test.class})
final class WebhooksCommand implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @CommandLine.ParentCommand Main main;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return 2;
    }

    @Command(name = "test", mixinStandardHelpOptions = true,
            description = {"Send one signed webhook.test message to URL, as the server sends webhooks, and print the answer.",
                    "Signed with the secret of the endpoint in webhooks.endpoints (or hooks.outbound) with this URL, else webhooks.secret.",
                    "A private, loopback or link-local address is refused unless that endpoint has allow_private, its host "
                            + "is in webhooks.allow_private_hosts, or --allow-private is given.",
                    "Exit status 0 when the receiver answered 2xx, 1 when it did not, 2 when there is no secret."})
    static final class Test implements Callable<Integer> {
        @Parameters(paramLabel = "URL", description = "the receiver's http or https URL") String url;
        @Option(names = "--allow-private", description = "Allow a private, loopback or link-local address (a receiver on this machine).")
        boolean allowPrivate;
        @CommandLine.Mixin Main.ConfigOptions options = new Main.ConfigOptions();
        @CommandLine.ParentCommand WebhooksCommand webhooks;
        @CommandLine.Spec CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws BootException {
            var out = spec.commandLine().getOut();
            var err = spec.commandLine().getErr();
            URI target;
            try {
                target = URI.create(url.trim());
                if (target.getHost() == null || !List.of("http", "https").contains(
                        String.valueOf(target.getScheme()).toLowerCase(Locale.ROOT)))
                    throw new IllegalArgumentException("not an http or https URL");
            } catch (IllegalArgumentException e) {
                err.println("caduceus webhooks test: " + url + " is not an http or https URL");
                err.flush();
                return 2;
            }
            var platformOptions = options.toPlatformOptions(List.of(), webhooks.main.env());
            var config = BootSteps.loadConfig(platformOptions);
            var settings = config.webhooks();
            var endpoint = settings.endpoints().stream().filter(e -> e.url().equals(target)).findFirst();
            var secrets = endpoint.map(PlatformConfig.Webhooks.Endpoint::secrets).orElse(settings.secrets());
            if (secrets.isEmpty() && endpoint.isEmpty()) {
                err.println("caduceus webhooks test: nothing to sign with: webhooks.secret is not set ("
                        + config.configFile().map(f -> "in " + f + " or ").orElse("in config.yaml or ")
                        + "CADUCEUS__WEBHOOKS__SECRET) and no endpoint in webhooks.endpoints has this URL");
                err.flush();
                return 2;
            }
            boolean mayBePrivate = allowPrivate || endpoint.map(PlatformConfig.Webhooks.Endpoint::allowPrivate).orElse(false)
                    || settings.allowPrivateHosts().contains(target.getHost().toLowerCase(Locale.ROOT));
            var clock = Clock.systemUTC();
            var json = new ObjectMapper();
            var message = WebhookMessage.newId();
            var body = json.createObjectNode().put("type", "webhook.test").put("timestamp", clock.instant().toString());
            body.putObject("data").put("message", "A test message from caduceus webhooks test");
            byte[] bytes;
            try {
                bytes = json.writeValueAsBytes(body);
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
            try (var client = new OutboundClient(BootSteps.proxyRules(config, webhooks.main.env()), "caduceus/" + Version.CURRENT)) {
                var sender = new WebhookSender(client, clock, "caduceus/" + Version.CURRENT);
                long started = System.nanoTime();
                var signer = secrets.isEmpty() ? java.util.Optional.<WebhookSigner>empty()
                        : java.util.Optional.of(WebhookSigner.of(secrets));
                var outcome = sender.send(new WebhookSender.Target(target, signer,
                                endpoint.map(PlatformConfig.Webhooks.Endpoint::hermes).orElse(false), mayBePrivate,
                                endpoint.map(PlatformConfig.Webhooks.Endpoint::timeout).orElse(java.time.Duration.ofSeconds(10))),
                        new WebhookMessage(message, "webhook.test", clock.instant(), bytes));
                long millis = (System.nanoTime() - started) / 1_000_000;
                out.println("POST " + target + " (webhook-id " + message + ", "
                        + (secrets.isEmpty() ? "unsigned" : endpoint.isPresent() ? "the endpoint's secret" : "webhooks.secret") + "): "
                        + outcome.summary() + " in " + millis + " ms");
                out.flush();
                return outcome instanceof DeliveryOutcome.Delivered ? 0 : 1;
            }
        }
    }
}
