import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * An A/B of two builds through the suite itself: runs {@code bench/run} with {@code BENCH_DIST} set to
 * each distribution in turn (A B A B ...), keeps each run's {@code suite.json} as
 * {@code bench/results/ab/A1.json}, {@code B1.json}, ..., and prints per metric every round's figures,
 * the medians and B/A, plus the same figure as a ratio to the nginx baseline measured in the same run
 * (which takes out much of a shared machine's drift between runs, though not what the server under test
 * takes from nginx's measurement, such as its JIT still compiling). Run by {@code bench/ab}; args:
 * DIST_A DIST_B ROUNDS [bench/run args...].
 */
public class AbSuite {
    /** The rows of the suite's table compared (for req/s higher is better, for the others lower). */
    private static final List<String> METRICS = List.of(
            "64 conn: req/s",
            "64 conn: CPU µs/req, Caduceus vs nginx",
            "64 conn: p99 ms",
            "16 conn: req/s",
            "1 conn: p50 ms",
            "first token ms",
            "[DONE] ms (500 tokens)");

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: bench/ab DIST_A DIST_B ROUNDS [bench/run args, e.g. --scenarios S1,S2]");
            System.exit(2);
        }
        var dists = List.of(Path.of(args[0]).toAbsolutePath(), Path.of(args[1]).toAbsolutePath());
        int rounds = Integer.parseInt(args[2]);
        var suiteArgs = Arrays.asList(args).subList(3, args.length);
        var out = Files.createDirectories(Path.of("bench/results/ab"));
        var json = new ObjectMapper();
        // metric -> [build][round] -> {caduceus, baseline}
        var figures = new LinkedHashMap<String, List<List<double[]>>>();
        for (var m : METRICS) figures.put(m, List.of(new ArrayList<>(), new ArrayList<>()));
        for (int r = 1; r <= rounds; r++) {
            for (int b = 0; b < 2; b++) {
                String label = (b == 0 ? "A" : "B") + r;
                System.out.printf("%s: %s%n", label, dists.get(b));
                var command = new ArrayList<>(List.of("bench/run"));
                command.addAll(suiteArgs);
                var pb = new ProcessBuilder(command).inheritIO();
                pb.environment().put("BENCH_DIST", dists.get(b).toString());
                int exit = pb.start().waitFor();
                if (exit != 0) throw new IllegalStateException("bench/run exited " + exit + " for " + label);
                var kept = out.resolve(label + ".json");
                Files.copy(Path.of("bench/results/suite.json"), kept, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                var rows = json.readTree(kept.toFile()).path("rows");
                for (var m : METRICS) {
                    var row = find(rows, m);
                    figures.get(m).get(b).add(row == null ? null
                            : new double[] {row.path("caduceus").asDouble(), row.path("baseline_value").asDouble()});
                }
            }
        }
        System.out.println();
        System.out.printf("%-40s %-30s %-30s %10s %14s%n", "metric", "A rounds", "B rounds", "B/A (med)", "B/A vs nginx");
        for (var m : METRICS) {
            var a = figures.get(m).get(0);
            var b = figures.get(m).get(1);
            if (a.contains(null) || b.contains(null)) continue;
            double ma = median(a, 0), mb = median(b, 0);
            // each run's figure over its own nginx figure, then the medians' ratio
            double na = medianOfRatio(a), nb = medianOfRatio(b);
            System.out.printf("%-40s %-30s %-30s %9.3f× %13.3f×%n", m, rounds(a), rounds(b), mb / ma, nb / na);
        }
        System.out.println("(" + (rounds * 2) + " runs kept in bench/results/ab/; for req/s higher is better, for the others lower)");
    }

    private static JsonNode find(JsonNode rows, String metric) {
        for (var row : rows) if (row.path("metric").asText().equals(metric)) return row;
        return null;
    }

    private static String rounds(List<double[]> runs) {
        var s = new StringBuilder();
        for (var run : runs) s.append(s.isEmpty() ? "" : " / ").append(run[0] >= 100 ? String.format("%.0f", run[0]) : String.format("%.2f", run[0]));
        return s.toString();
    }

    private static double median(List<double[]> runs, int i) {
        var v = runs.stream().mapToDouble(r -> r[i]).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static double medianOfRatio(List<double[]> runs) {
        var v = runs.stream().mapToDouble(r -> r[0] / r[1]).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
