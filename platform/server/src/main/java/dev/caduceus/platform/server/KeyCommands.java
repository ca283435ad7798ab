package dev.caduceus.platform.server;

import dev.caduceus.platform.host.boot.BootSteps;
import dev.caduceus.platform.host.auth.ApiKeyException;
import dev.caduceus.platform.host.auth.KeyPolicy;
import dev.caduceus.platform.host.auth.NamedKeys;
import dev.caduceus.platform.host.boot.BootException;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caduceus key add|list|revoke}: the named keys ({@link NamedKeys}) in the configured database
 * ({@code database.url}, else the state directory's {@code caduceus.db}). They work beside running
 * servers: each sees a change at its next request (SQLite) or within about a second (PostgreSQL). Exit
 * status 2 for a bad name or policy, a duplicate name and an unknown or already revoked key.
 */
final class KeyCommands {
    private KeyCommands() {}

    private interface Work<T> {
        T run(NamedKeys keys);
    }

    private static <T> T withKeys(Main.Key key, Work<T> work) throws BootException {
        try (var db = BootSteps.openStateDatabase(key.options())) { // database.url when set: the keys of every node
            return work.run(new NamedKeys(db, new SecureRandom(), Clock.systemUTC()));
        } catch (ApiKeyException | IllegalArgumentException e) {
            throw new BootException(e.getMessage(), 2, e);
        }
    }

    @Command(name = "add", mixinStandardHelpOptions = true,
            description = {"Add a named key and print it once. Its requests, runs, responses, jobs and memory are its own.",
                    "Takes effect at once, also on a running server."})
    static final class Add implements Callable<Integer> {
        @Parameters(paramLabel = "NAME", description = "lower-case letters, digits, '-' and '_' (not admin)") String name;
        @Option(names = "--families", paramLabel = "F,…",
                description = "Endpoint families it may use (e.g. chat,models); others answer 404. Default: all.")
        String families;
        @Option(names = "--model-name", paramLabel = "ID", description = "The model id its /v1/models shows.")
        String modelName;
        @Option(names = "--rpm", paramLabel = "N", description = "Requests per minute; beyond, 429 with Retry-After.")
        String rpm;
        @Option(names = "--toolsets", paramLabel = "T,…", description = "The only toolsets its agent turns offer.")
        String toolsets;
        @Option(names = "--max-concurrent-runs", paramLabel = "N",
                description = "Its own cap on agent turns at once; beyond, 429 with Retry-After.")
        String maxRuns;
        @Option(names = "--webhook", paramLabel = "URL",
                description = "Where the events of its runs, jobs and background responses are also sent, signed with "
                        + "webhooks.secret (docs/webhooks.md).")
        String webhook;
        @Option(names = "--max-file-bytes", paramLabel = "SIZE",
                description = "The largest file it may upload to /v1/files (e.g. 50M, 2G), when lower than files.max_bytes.")
        String maxFileBytes;
        @Option(names = "--max-storage-bytes", paramLabel = "SIZE",
                description = "What its files in /v1/files may hold together (e.g. 1G), when lower than files.quota_bytes.")
        String maxStorageBytes;
        @Option(names = "--models", paramLabel = "R,…",
                description = "The only model routes (model.routes) it may name; others answer 404 model_not_found, and "
                        + "its /v1/models lists only these. Default: all.")
        String models;
        @Option(names = "--budget-usd", paramLabel = "USD",
                description = "What its model calls may cost per --budget-period (e.g. 20, 0.50), priced with the "
                        + "deployments' price (docs/models.md); past it, its turns answer 429 budget_exceeded until the "
                        + "next period. Default: no budget.")
        String budgetUsd;
        @Option(names = "--budget-period", paramLabel = "PERIOD",
                description = "The --budget-usd period, in UTC: day, week (from Monday) or month. Default: month.")
        String budgetPeriod;
        @Option(names = "--tpm", paramLabel = "N",
                description = "Model tokens (prompt and completion) its turns may use per minute; past it, new turns "
                        + "answer 429 rate_limit_exceeded with Retry-After. Default: no limit.")
        String tpm;
        @CommandLine.ParentCommand Main.Key key;
        @CommandLine.Spec CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws BootException {
            KeyPolicy policy;
            try {
                policy = KeyPolicy.parse(families, modelName, rpm, toolsets, maxRuns).withWebhook(webhook)
                        .withMaxFileBytes(maxFileBytes).withMaxStorageBytes(maxStorageBytes).withModels(models)
                        .withBudget(budgetUsd, budgetPeriod).withTokensPerMinute(tpm);
            } catch (IllegalArgumentException e) {
                throw new BootException(e.getMessage(), 2, e);
            }
            var added = withKeys(key, keys -> keys.add(name, policy));
            var out = spec.commandLine().getOut();
            out.println("Added key '" + added.name() + "' (" + policy.describe() + "). The key, shown only now:");
            out.println("    " + added.key());
            return 0;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true,
            description = "List the named keys: name, created, last used, revoked, policy (never the keys).")
    static final class ListKeys implements Callable<Integer> {
        @CommandLine.ParentCommand Main.Key key;
        @CommandLine.Spec CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws BootException {
            var entries = withKeys(key, NamedKeys::list);
            var out = spec.commandLine().getOut();
            if (entries.isEmpty()) {
                out.println("No named keys. Add one with: caduceus key add NAME");
                return 0;
            }
            out.printf("%-24s %-20s %-20s %-20s %s%n", "NAME", "CREATED", "LAST USED", "REVOKED", "POLICY");
            for (var e : entries) {
                out.printf("%-24s %-20s %-20s %-20s %s%n", e.name(), minute(e.createdAt()),
                        e.lastUsedAt().map(KeyCommands::minute).orElse("-"),
                        e.revokedAt().map(KeyCommands::minute).orElse("-"), e.policy().describe());
            }
            return 0;
        }
    }

    @Command(name = "revoke", mixinStandardHelpOptions = true,
            description = "Revoke a named key: its next request gets 401. Its objects stay its own; the name is not reused.")
    static final class Revoke implements Callable<Integer> {
        @Parameters(paramLabel = "NAME") String name;
        @CommandLine.ParentCommand Main.Key key;
        @CommandLine.Spec CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws BootException {
            withKeys(key, keys -> {
                keys.revoke(name);
                return null;
            });
            spec.commandLine().getOut().println("Revoked key '" + name + "'.");
            return 0;
        }
    }

    private static String minute(java.time.Instant instant) {
        return instant.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString().replace('T', ' ').replace("Z", "");
    }
}
