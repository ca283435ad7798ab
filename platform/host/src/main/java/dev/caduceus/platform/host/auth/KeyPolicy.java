package dev.caduceus.platform.host.auth;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * What a named key may do. Immutable.
 *
 * @param families          endpoint families it may use ({@code chat}, {@code responses}, …); empty: all
 * @param modelName         the model id its clients see on {@code /v1/models}, if not the server's
 * @param requestsPerMinute its request rate limit; 0: none
 * @param toolsets          the only toolsets its agent turns offer; empty: the deployment's
 * @param maxConcurrentRuns the most agent turns it may have at once; 0: only the server's cap
 * @param limits            numeric settings set lower for this key, by name ({@code files.max_bytes}: {@code --max-file-bytes},
 *                          {@code model.tpm}: {@code --tpm})
 * @param models            the only model routes it may name; empty: all
 * @param budget            what it may spend on model calls per period ({@code --budget-usd}, {@code --budget-period})
 */
public record KeyPolicy(List<String> families, Optional<String> modelName, int requestsPerMinute,
                        List<String> toolsets, int maxConcurrentRuns, Optional<java.net.URI> webhook,
                        java.util.Map<String, Long> limits, List<String> models, Optional<Budget> budget) {
    /** The setting {@code --tpm} sets: model tokens (prompt and completion) the key's turns may use per minute. */
    public static final String TOKENS_PER_MINUTE = "model.tpm";

    /** The setting {@code --max-file-bytes} lowers: the largest file the key may upload. */
    public static final String MAX_FILE_BYTES = "files.max_bytes";
    /** The setting {@code --max-storage-bytes} lowers: what the key's files may hold together. */
    public static final String MAX_STORAGE_BYTES = "files.quota_bytes";

    /** No restriction. */
    public static final KeyPolicy NONE = new KeyPolicy(List.of(), Optional.empty(), 0, List.of(), 0, Optional.empty());

    public KeyPolicy(List<String> families, Optional<String> modelName, int requestsPerMinute, List<String> toolsets,
                     int maxConcurrentRuns) {
        this(families, modelName, requestsPerMinute, toolsets, maxConcurrentRuns, Optional.empty());
    }

    public KeyPolicy(List<String> families, Optional<String> modelName, int requestsPerMinute, List<String> toolsets,
                     int maxConcurrentRuns, Optional<java.net.URI> webhook) {
        this(families, modelName, requestsPerMinute, toolsets, maxConcurrentRuns, webhook, java.util.Map.of());
    }

    public KeyPolicy(List<String> families, Optional<String> modelName, int requestsPerMinute, List<String> toolsets,
                     int maxConcurrentRuns, Optional<java.net.URI> webhook, java.util.Map<String, Long> limits) {
        this(families, modelName, requestsPerMinute, toolsets, maxConcurrentRuns, webhook, limits, List.of());
    }

    public KeyPolicy(List<String> families, Optional<String> modelName, int requestsPerMinute, List<String> toolsets,
                     int maxConcurrentRuns, Optional<java.net.URI> webhook, java.util.Map<String, Long> limits,
                     List<String> models) {
        this(families, modelName, requestsPerMinute, toolsets, maxConcurrentRuns, webhook, limits, models, Optional.empty());
    }

    /** This policy with {@code --budget-usd AMOUNT} and {@code --budget-period day|week|month} (default month). */
    public KeyPolicy withBudget(String usd, String period) {
        if (usd == null) {
            if (period != null) throw new IllegalArgumentException("--budget-period needs --budget-usd");
            return this;
        }
        return new KeyPolicy(families, modelName, requestsPerMinute, toolsets, maxConcurrentRuns, webhook, limits, models,
                Optional.of(Budget.parse(usd, period)));
    }

    /** This policy with {@code --tpm N}: model tokens per minute for the key's turns. */
    public KeyPolicy withTokensPerMinute(String tpm) {
        if (tpm == null) return this;
        var all = new java.util.TreeMap<>(limits);
        all.put(TOKENS_PER_MINUTE, (long) number(tpm, "--tpm", 1, 1_000_000_000));
        return new KeyPolicy(families, modelName, requestsPerMinute, toolsets, maxConcurrentRuns, webhook, all, models, budget);
    }

    /** Its {@code --tpm}, or 0 for none. */
    public long tokensPerMinute() {
        return limits.getOrDefault(TOKENS_PER_MINUTE, 0L);
    }

    /** This policy with {@code --models R,…}: the only model routes ({@code model.routes}) the key may name. */
    public KeyPolicy withModels(String csv) {
        if (csv == null) return this;
        var routes = new ArrayList<String>();
        for (var part : csv.split(",")) {
            var id = part.strip();
            if (!MODEL.matcher(id).matches())
                throw new IllegalArgumentException("--models: '" + id + "' is not a route name (letters, digits, . _ : / -)");
            routes.add(id);
        }
        return new KeyPolicy(families, modelName, requestsPerMinute, toolsets, maxConcurrentRuns, webhook, limits, routes, budget);
    }

    /**
     * This policy with {@code --max-file-bytes SIZE} ({@code 200M}, {@code 2G}, or bytes): the largest file the key may
     * upload, when lower than {@code files.max_bytes}.
     */
    public KeyPolicy withMaxFileBytes(String size) {
        return withLimit(MAX_FILE_BYTES, size, "--max-file-bytes");
    }

    /** This policy with {@code --max-storage-bytes SIZE}: what the key's files may hold together, when lower than {@code files.quota_bytes}. */
    public KeyPolicy withMaxStorageBytes(String size) {
        return withLimit(MAX_STORAGE_BYTES, size, "--max-storage-bytes");
    }

    private KeyPolicy withLimit(String setting, String size, String option) {
        if (size == null) return this;
        var all = new java.util.TreeMap<>(limits);
        all.put(setting, bytes(size, option));
        return new KeyPolicy(families, modelName, requestsPerMinute, toolsets, maxConcurrentRuns, webhook, all, models, budget);
    }

    /** {@code 512}, {@code 200K}, {@code 200M}, {@code 2G} (powers of 1024) as bytes, at least 1. */
    static long bytes(String text, String option) {
        var m = java.util.regex.Pattern.compile("([0-9]{1,15})\\s*([kKmMgG]?)[iI]?[bB]?").matcher(text.strip());
        if (!m.matches() || Long.parseLong(m.group(1)) < 1)
            throw new IllegalArgumentException(option + ": '" + text + "' is not a size (bytes, or a number with K, M or G)");
        long unit = switch (m.group(2).toUpperCase(java.util.Locale.ROOT)) {
            case "K" -> 1024L;
            case "M" -> 1024L * 1024;
            case "G" -> 1024L * 1024 * 1024;
            default -> 1L;
        };
        return Math.multiplyExact(Long.parseLong(m.group(1)), unit);
    }

    /** This policy with {@code --webhook URL}: every event of the key's runs, jobs and responses goes there too. */
    public KeyPolicy withWebhook(String url) {
        if (url == null) return this;
        java.net.URI uri;
        try {
            uri = new dev.caduceus.spi.webhook.Webhook(java.net.URI.create(url.strip()), List.of()).url();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--webhook: '" + url + "' is not an http or https URL");
        }
        return new KeyPolicy(families, modelName, requestsPerMinute, toolsets, maxConcurrentRuns, Optional.of(uri), limits,
                models, budget);
    }
    private static final Pattern WORD = Pattern.compile("[a-z0-9][a-z0-9_-]{0,63}");
    private static final Pattern MODEL = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}");

    public KeyPolicy {
        requireNonNull(webhook, "webhook");
        limits = java.util.Map.copyOf(limits);
        families = List.copyOf(new TreeSet<>(families));
        requireNonNull(modelName, "modelName");
        if (requestsPerMinute < 0) throw new IllegalArgumentException("requestsPerMinute must be >= 0");
        toolsets = List.copyOf(new TreeSet<>(toolsets));
        if (maxConcurrentRuns < 0) throw new IllegalArgumentException("maxConcurrentRuns must be >= 0");
        models = List.copyOf(new TreeSet<>(models));
        requireNonNull(budget, "budget");
    }

    /** As {@link #parse(String, String, String)}, with {@code --toolsets} and {@code --max-concurrent-runs}. */
    public static KeyPolicy parse(String families, String modelName, String rpm, String toolsets, String maxRuns) {
        var base = parse(families, modelName, rpm);
        var sets = words(toolsets, "--toolsets", "a toolset name (web, terminal, file, memory, …)");
        int runs = number(maxRuns, "--max-concurrent-runs", 1, 100_000);
        return new KeyPolicy(base.families(), base.modelName(), base.requestsPerMinute(), sets, runs);
    }

    private static List<String> words(String csv, String option, String what) {
        var list = new ArrayList<String>();
        if (csv == null) return list;
        for (var part : csv.split(",")) {
            var id = part.strip();
            if (!WORD.matcher(id).matches()) throw new IllegalArgumentException(option + ": '" + id + "' is not " + what);
            list.add(id);
        }
        return list;
    }

    private static int number(String text, String option, int min, int max) {
        if (text == null) return 0;
        int n;
        try {
            n = Integer.parseInt(text.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + ": '" + text + "' is not a whole number");
        }
        if (n < min || n > max) throw new IllegalArgumentException(option + " must be between " + min + " and " + max + ": " + text);
        return n;
    }

    /**
     * A policy from the {@code key add} options; every value checked.
     *
     * @param families  comma-separated family ids, or null
     * @param modelName a model id, or null
     * @param rpm       requests per minute as typed, or null
     * @throws IllegalArgumentException naming the option and the rule
     */
    public static KeyPolicy parse(String families, String modelName, String rpm) {
        var list = words(families, "--families", "a family id (chat, responses, runs, …)");
        if (modelName != null && !MODEL.matcher(modelName).matches())
            throw new IllegalArgumentException("--model-name: '" + modelName + "' is not a model id (letters, digits, . _ : / -)");
        int perMinute = number(rpm, "--rpm", 1, 1_000_000);
        return new KeyPolicy(list, Optional.ofNullable(modelName), perMinute, List.of(), 0);
    }

    ObjectNode toJson() {
        var node = JsonNodeFactory.instance.objectNode();
        var array = node.putArray("families");
        families.forEach(array::add);
        modelName.ifPresent(m -> node.put("model_name", m));
        if (requestsPerMinute > 0) node.put("rpm", requestsPerMinute);
        var sets = node.putArray("toolsets");
        toolsets.forEach(sets::add);
        if (maxConcurrentRuns > 0) node.put("max_concurrent_runs", maxConcurrentRuns);
        webhook.ifPresent(w -> node.put("webhook", w.toString()));
        if (!limits.isEmpty()) {
            var object = node.putObject("limits");
            new java.util.TreeMap<>(limits).forEach(object::put);
        }
        if (!models.isEmpty()) models.forEach(node.putArray("models")::add);
        budget.ifPresent(b -> node.putObject("budget").put("usd", b.usd().toPlainString()).put("period", b.period().wireName()));
        return node;
    }

    static KeyPolicy fromJson(JsonNode node) {
        var families = new ArrayList<String>();
        node.path("families").forEach(f -> families.add(f.asText()));
        var model = node.path("model_name").isTextual() ? Optional.of(node.path("model_name").asText()) : Optional.<String>empty();
        var toolsets = new ArrayList<String>();
        node.path("toolsets").forEach(t -> toolsets.add(t.asText()));
        var webhook = node.path("webhook").isTextual() ? Optional.of(java.net.URI.create(node.path("webhook").asText()))
                : Optional.<java.net.URI>empty();
        var limits = new java.util.TreeMap<String, Long>();
        node.path("limits").properties().forEach(e -> {
            if (e.getValue().canConvertToLong()) limits.put(e.getKey(), e.getValue().asLong());
        });
        var models = new ArrayList<String>();
        node.path("models").forEach(m -> models.add(m.asText()));
        var budget = node.path("budget").path("usd").isTextual()
                ? Optional.of(Budget.parse(node.path("budget").path("usd").asText(), node.path("budget").path("period").asText("month")))
                : Optional.<Budget>empty();
        return new KeyPolicy(families, model, node.path("rpm").asInt(0), toolsets, node.path("max_concurrent_runs").asInt(0),
                webhook, limits, models, budget);
    }

    /** For {@code key list}: {@code families=chat,runs model=m rpm=60}, or {@code -}. */
    public String describe() {
        var parts = new ArrayList<String>();
        if (!families.isEmpty()) parts.add("families=" + String.join(",", families));
        modelName.ifPresent(m -> parts.add("model=" + m));
        if (requestsPerMinute > 0) parts.add("rpm=" + requestsPerMinute);
        if (!toolsets.isEmpty()) parts.add("toolsets=" + String.join(",", toolsets));
        if (maxConcurrentRuns > 0) parts.add("max-runs=" + maxConcurrentRuns);
        webhook.ifPresent(w -> parts.add("webhook=" + w));
        new java.util.TreeMap<>(limits).forEach((k, v) -> parts.add(k + "=" + v));
        if (!models.isEmpty()) parts.add("models=" + String.join(",", models));
        budget.ifPresent(b -> parts.add("budget=" + b.describe()));
        return parts.isEmpty() ? "-" : String.join(" ", parts);
    }
}
