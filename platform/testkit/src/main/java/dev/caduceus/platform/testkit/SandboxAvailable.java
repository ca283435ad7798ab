package dev.caduceus.platform.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs sandbox tests only where bubblewrap can create its namespaces, and says why not elsewhere
 * (the reason shows in the test report as the skip reason). CI installs bubblewrap, so there they
 * run; {@code CADUCEUS_REQUIRE_SANDBOX=true} turns a missing sandbox into a failure instead.
 */
public final class SandboxAvailable implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        var reason = problem();
        if (reason == null) return ConditionEvaluationResult.enabled("bubblewrap works here");
        if ("true".equals(System.getenv("CADUCEUS_REQUIRE_SANDBOX")))
            throw new IllegalStateException("CADUCEUS_REQUIRE_SANDBOX is set but " + reason);
        return ConditionEvaluationResult.disabled("sandbox tests skipped: " + reason);
    }

    private static String problem() {
        if (!Files.isExecutable(Path.of("/usr/bin/bwrap"))) return "bubblewrap is not installed (apt-get install bubblewrap)";
        try {
            var p = new ProcessBuilder("/usr/bin/bwrap", "--ro-bind", "/", "/", "--unshare-pid", "--die-with-parent",
                    "true").redirectErrorStream(true).start();
            var out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(10, TimeUnit.SECONDS)) return "bwrap did not finish";
            return p.exitValue() == 0 ? null : "bwrap cannot run here: " + out.strip();
        } catch (Exception e) {
            return "bwrap cannot run here: " + e;
        }
    }
}
