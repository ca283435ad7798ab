package dev.caduceus.distribution;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPathFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

/**
 * The README's command 2 on a fresh machine: {@code .ci/run} runs exactly that command, the root pom runs
 * {@code .ci/test-prerequisites} before any module compiles and gives the tests the environment
 * {@code .ci/run} used to export, and the script installs what is missing (as root) or stops on one line.
 * The script runs for real, in {@code --check} mode or with a stand-in {@code apt-get} first on the PATH.
 */
class PrerequisitesTest {
    static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();
    static final Path SCRIPT = ROOT.resolve(".ci/test-prerequisites");
    static final String ROOT_POM_PLUGINS = "/project/build/plugins/plugin";

    @TempDir Path tmp;

    @Test
    void ciRunsExactlyTheReadmesTestCommandAndInstallsNothingItself() throws Exception {
        var readme = Files.readString(ROOT.resolve("README.md"));
        var section = readme.substring(readme.indexOf("## The two commands"));
        var lines = section.lines().toList();
        var label = lines.stream().filter(l -> l.startsWith("# 2.")).findFirst().orElseThrow();
        var command2 = lines.get(lines.indexOf(label) + 1);
        assertEquals("mvn -B verify", command2, "the README's command 2");

        var ci = Files.readAllLines(ROOT.resolve(".ci/run"));
        var commands = ci.stream().filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
        assertEquals(command2, commands.getLast(), ".ci/run ends with exactly the README's command 2");
        for (var line : commands)
            assertFalse(line.contains("apt-get") || line.contains("CADUCEUS_REQUIRE_SANDBOX")
                    || line.contains("PLAYWRIGHT"), ".ci/run leaves installing and the tests' environment to the build: " + line);
    }

    @Test
    void theRootPomRunsTheScriptOnceBeforeAnyModuleCompilesUnlessTestsAreSkipped() throws Exception {
        var pom = rootPom();
        var xpath = XPathFactory.newInstance().newXPath();
        var antrun = ROOT_POM_PLUGINS + "[artifactId='maven-antrun-plugin']";
        assertEquals("false", xpath.evaluate(antrun + "/inherited", pom), "once, from the root");
        var execution = antrun + "/executions/execution[id='test-prerequisites']";
        assertEquals("validate", xpath.evaluate(execution + "/phase", pom));
        assertEquals("run", xpath.evaluate(execution + "/goals/goal", pom));
        var target = execution + "/configuration/target";
        assertEquals("${project.basedir}/.ci/test-prerequisites", xpath.evaluate(target + "/exec/arg/@file", pom));
        assertEquals("${prerequisites.missing}", xpath.evaluate(target + "/fail/@message", pom),
                "the script's line is the build's error");
        assertEquals("${caduceus.prerequisites.skip}", xpath.evaluate(execution + "/configuration/skip", pom));
        assertEquals("false", xpath.evaluate("/project/properties/caduceus.prerequisites.skip", pom));
        for (var property : List.of("skipTests", "maven.test.skip")) {
            var profile = "/project/profiles/profile[activation/property/name='" + property + "']";
            assertEquals("true", xpath.evaluate(profile + "/activation/property/value", pom), property);
            assertEquals("true", xpath.evaluate(profile + "/properties/caduceus.prerequisites.skip", pom), property);
        }
    }

    @Test
    void surefireAndFailsafeGiveTheTestsTheEnvironmentCiUsedToExport() throws Exception {
        var pom = rootPom();
        var xpath = XPathFactory.newInstance().newXPath();
        for (var plugin : List.of("maven-surefire-plugin", "maven-failsafe-plugin")) {
            var env = "/project/build/pluginManagement/plugins/plugin[artifactId='" + plugin
                    + "']/configuration/environmentVariables/";
            assertEquals("true", xpath.evaluate(env + "CADUCEUS_REQUIRE_SANDBOX", pom), plugin);
            assertEquals("1", xpath.evaluate(env + "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", pom), plugin);
        }
        // and this test runs under failsafe, in what the pom says
        assertEquals("true", System.getenv("CADUCEUS_REQUIRE_SANDBOX"));
        assertEquals("1", System.getenv("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD"));
    }

    @Test
    void everythingPresentExitsZeroAndSaysNothing() throws Exception {
        var run = script(Map.of(), "--check");
        assertEquals(0, run.exit(), run.output());
        assertEquals("", run.output());
    }

    @Test
    void aMissingProgramStopsOnOneLineNamingThePackageAndTheCommandThatInstallsIt() throws Exception {
        var run = script(Map.of("CADUCEUS_PREREQ_TINYPROXY", "/nonexistent/tinyproxy"), "--check");
        assertEquals(1, run.exit(), run.output());
        assertEquals(List.of("Missing for the test suite: tinyproxy (/nonexistent/tinyproxy); install them with: "
                + (isRoot() ? "" : "sudo ") + "apt-get install -y tinyproxy"), run.lines());
    }

    @Test
    void asRootTheMissingPackageIsInstalledWithAptGet() throws Exception {
        assumeTrue(isRoot(), "the script installs only as root");
        var tinyproxy = tmp.resolve("installed/tinyproxy");
        var bin = aptGet("mkdir -p '" + tinyproxy.getParent() + "' && printf '#!/bin/sh\\n' > '" + tinyproxy
                + "' && chmod +x '" + tinyproxy + "'");
        var run = script(Map.of("CADUCEUS_PREREQ_TINYPROXY", tinyproxy.toString(),
                "PATH", bin + ":" + System.getenv("PATH"), "TMPDIR", tmp.toString()));
        assertEquals(0, run.exit(), run.output());
        assertEquals(List.of("Installing for the test suite: apt-get install -y tinyproxy (log: "
                + tmp.resolve("caduceus-test-prerequisites.log") + ")"), run.lines());
        assertEquals(List.of("update -qq", "install -y -qq tinyproxy"), Files.readAllLines(bin.resolve("calls")));
    }

    @Test
    void asRootAFailingAptGetStillEndsInTheOneLine() throws Exception {
        assumeTrue(isRoot(), "the script installs only as root");
        var bin = aptGet("echo 'E: Unable to locate package tinyproxy' >&2; exit 100");
        var run = script(Map.of("CADUCEUS_PREREQ_TINYPROXY", "/nonexistent/tinyproxy",
                "PATH", bin + ":" + System.getenv("PATH"), "TMPDIR", tmp.toString()));
        assertEquals(1, run.exit(), run.output());
        var log = tmp.resolve("caduceus-test-prerequisites.log");
        assertEquals(List.of("Installing for the test suite: apt-get install -y tinyproxy (log: " + log + ")",
                "Missing for the test suite: tinyproxy (/nonexistent/tinyproxy); apt-get failed (see " + log
                        + "); install them with: apt-get install -y tinyproxy"), run.lines());
        assertTrue(Files.readString(log).contains("Unable to locate package"), "apt-get's output is kept");
    }

    /** What one run of the script did. */
    record Run(int exit, String output) {
        List<String> lines() {
            return output.lines().toList();
        }
    }

    private static Run script(Map<String, String> env, String... args) throws Exception {
        var command = new ArrayList<>(List.of("sh", SCRIPT.toString()));
        command.addAll(List.of(args));
        var builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(env);
        var process = builder.start();
        var output = new String(process.getInputStream().readAllBytes(), UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the script did not finish: " + output);
        return new Run(process.exitValue(), output);
    }

    /** A directory holding a stand-in {@code apt-get} that logs its arguments to {@code calls} and, on install, runs {@code onInstall}. */
    private Path aptGet(String onInstall) throws Exception {
        var bin = Files.createDirectories(tmp.resolve("bin"));
        var aptGet = bin.resolve("apt-get");
        Files.writeString(aptGet, """
                #!/bin/sh
                echo "$*" >> '%s'
                if [ "$1" = install ]; then %s; fi
                """.formatted(bin.resolve("calls"), onInstall));
        assertTrue(aptGet.toFile().setExecutable(true));
        return bin;
    }

    private static Document rootPom() throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(ROOT.resolve("pom.xml").toFile());
    }

    private static boolean isRoot() throws Exception {
        return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
    }
}
