package dev.caduceus.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * The shape of the contract, as a plugin author meets it: packages that depend on each other in one
 * direction only (checked with the JDK's own {@code jdeps} on the compiled classes), at most
 * {@value #MAX_PUBLIC_TYPES} public top-level types, and each of them documented, with its threading
 * or lifecycle.
 */
class SpiShapeTest {
    /**
     * Issue 18 brought the count to 60; the outbound HTTP client (issue 19) added one type, with its
     * request, response, event, egress and failure types nested in it. MCP (issue 22) added two:
     * {@code ToolSource} (tools that change while the server runs) and {@code ToolCalls} (a tool
     * called outside a turn, for endpoint-mcp). Metrics (issue 23) added one, {@code Metrics}, with
     * its counter and histogram nested in it. Issue 40 took out what existed for one plugin or one
     * application (64 to 60): {@code ResponseHistory}, {@code ToolCalls}, {@code DistributionSpec} and
     * {@code ToolStatsSchema} are services found by type now, in {@code caduceus-plugin-support}. The
     * way down is dropping such types, never nesting unrelated ones to pass this count. Webhooks (issue 44)
     * added two: {@code Webhook}, the target a request names, which runs, jobs and background responses
     * share ({@code RunOptions.webhook}), and {@code Webhooks}, the service that writes a plugin's events.
     */
    static final int MAX_PUBLIC_TYPES = 62;
    private static final Path CLASSES = Path.of("target", "classes");
    private static final Path SOURCES = Path.of("src", "main", "java");
    /** What a type's Javadoc says about threads or lifecycle (enums are constants and need not). */
    private static final Pattern THREADING = Pattern.compile("[Tt]hread|[Ii]mmutable|[Ss]tateless|[Ll]ifecycle");
    private static final Pattern EDGE = Pattern.compile("^\\s+(dev\\.caduceus\\.spi[\\w.$]*)\\s+->\\s+(dev\\.caduceus\\.spi[\\w.$]*)\\s");

    @Test
    void packagesHaveNoCycles() {
        var graph = packageGraph();
        var packages = new TreeSet<>(graph.keySet());
        graph.values().forEach(packages::addAll);
        assertTrue(packages.size() >= 8, "jdeps found the SPI's packages: " + packages);
        var cycles = cycles(graph);
        assertEquals(List.of(), cycles, "package cycles in the SPI (jdeps): " + graph);
    }

    @Test
    void fewPublicTopLevelTypes() throws Exception {
        var types = publicTopLevelTypes();
        assertTrue(types.size() <= MAX_PUBLIC_TYPES, types.size() + " public top-level types: " + types);
    }

    @Test
    void everyPublicTypeSaysWhatItIs() throws IOException {
        var undocumented = new ArrayList<String>();
        for (var type : publicTopLevelTypes()) {
            var source = SOURCES.resolve(type.replace('.', '/') + ".java");
            var text = Files.readString(source);
            var declaration = Pattern.compile("(?m)^public ").matcher(text);
            assertTrue(declaration.find(), type);
            var before = text.substring(0, declaration.start());
            // a Javadoc comment after the last import, with only annotations between it and the declaration
            var header = Pattern.compile("(?m)^(import|package) .*;$").matcher(before);
            int headerEnd = 0;
            while (header.find()) headerEnd = header.end();
            var doc = before.indexOf("/**", headerEnd) < 0 ? "" : before.substring(before.indexOf("/**", headerEnd));
            boolean constants = text.contains("public enum ");
            if (doc.isEmpty() || !constants && !THREADING.matcher(doc).find()) undocumented.add(type);
        }
        assertEquals(List.of(), undocumented, "public SPI types without Javadoc that states their threading or lifecycle");
    }

    /** Package → packages it uses, from {@code jdeps -verbose:class} (multi-release aware, Jackson on the module path). */
    private static Map<String, Set<String>> packageGraph() {
        var jdeps = ToolProvider.findFirst("jdeps").orElseThrow(() -> new AssertionError("this JDK has no jdeps"));
        var modulePath = Arrays.stream(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
                .filter(p -> p.contains("jackson")).toList();
        var out = new StringWriter();
        var err = new StringWriter();
        int code = jdeps.run(new PrintWriter(out), new PrintWriter(err), "--multi-release", "21", "--module-path",
                String.join(java.io.File.pathSeparator, modulePath), "-verbose:class", CLASSES.toString());
        assertEquals(0, code, "jdeps failed: " + err);
        var graph = new TreeMap<String, Set<String>>();
        for (var line : out.toString().split("\n")) {
            var m = EDGE.matcher(line);
            if (!m.find()) continue;
            var from = packageOf(m.group(1));
            var to = packageOf(m.group(2));
            graph.computeIfAbsent(from, k -> new TreeSet<>());
            if (!from.equals(to)) graph.get(from).add(to);
        }
        return graph;
    }

    private static String packageOf(String className) {
        return className.substring(0, className.lastIndexOf('.'));
    }

    /** Every strongly connected set of more than one package (Tarjan). */
    static List<Set<String>> cycles(Map<String, Set<String>> graph) {
        var index = new HashMap<String, Integer>();
        var low = new HashMap<String, Integer>();
        var stack = new ArrayList<String>();
        var found = new ArrayList<Set<String>>();
        for (var node : graph.keySet()) if (!index.containsKey(node)) connect(node, graph, index, low, stack, found);
        return found;
    }

    private static void connect(String node, Map<String, Set<String>> graph, Map<String, Integer> index,
                                Map<String, Integer> low, List<String> stack, List<Set<String>> found) {
        index.put(node, index.size());
        low.put(node, index.get(node));
        stack.add(node);
        for (var next : graph.getOrDefault(node, Set.of())) {
            if (!index.containsKey(next)) {
                connect(next, graph, index, low, stack, found);
                low.put(node, Math.min(low.get(node), low.get(next)));
            } else if (stack.contains(next)) {
                low.put(node, Math.min(low.get(node), index.get(next)));
            }
        }
        if (low.get(node).equals(index.get(node))) {
            var component = new TreeSet<String>();
            String member;
            do {
                member = stack.removeLast();
                component.add(member);
            } while (!member.equals(node));
            if (component.size() > 1) found.add(component);
        }
    }

    private static List<String> publicTopLevelTypes() throws IOException {
        var names = new TreeSet<String>();
        try (var files = Files.walk(CLASSES)) {
            for (var file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                var relative = CLASSES.relativize(file).toString().replace(java.io.File.separatorChar, '.');
                var name = relative.substring(0, relative.length() - ".class".length());
                if (name.contains("$") || name.endsWith("package-info") || name.equals("module-info")) continue;
                try {
                    if (Modifier.isPublic(Class.forName(name, false, SpiShapeTest.class.getClassLoader()).getModifiers()))
                        names.add(name);
                } catch (ClassNotFoundException e) {
                    throw new AssertionError(e);
                }
            }
        }
        return List.copyOf(names);
    }

    @Test
    void theCycleFinderFindsCycles() {
        var graph = Map.<String, Set<String>>of("a", Set.of("b"), "b", Set.of("c"), "c", Set.of("a"), "d", Set.of("a"));
        assertEquals(List.of(Set.of("a", "b", "c")), cycles(new TreeMap<>(graph)));
        assertEquals(List.of(), cycles(new TreeMap<>(Map.of("a", Set.of("b"), "b", Set.of()))));
    }
}
