package dev.caduceus.platform.batch;

import java.nio.file.Path;
import java.util.List;

/**
 * The validated flags of {@code caduceus batch}. Immutable.
 *
 * @param seed       {@code --seed}, or null for a random one (reused on resume)
 * @param maxSamples {@code --max_samples}, 0 for all
 * @param prefill    the parsed {@code --prefill_messages_file} ({@code role}, {@code content} pairs)
 * @param toolStatsSchema {@code --tool_stats_schema}: {@code installed}, or the name of a contributed schema
 */
record BatchOptions(Path datasetFile, int batchSize, String runName, String distribution, boolean distributionGiven,
                    int maxTurns, int numWorkers, boolean resume, boolean verbose, String ephemeralSystemPrompt,
                    int logPrefixChars, List<String> providersAllowed, List<String> providersIgnored,
                    List<String> providersOrder, String providerSort, Integer maxTokens, String reasoningEffort,
                    boolean reasoningDisabled, List<String[]> prefill, int maxSamples, Path outputDir, Long seed,
                    boolean overwrite, boolean requireReasoning, boolean noProgress, String toolStatsSchema) {
    BatchOptions {
        providersAllowed = List.copyOf(providersAllowed);
        providersIgnored = List.copyOf(providersIgnored);
        providersOrder = List.copyOf(providersOrder);
        prefill = List.copyOf(prefill);
    }
}
