import dev.caduceus.platform.host.outbound.OutboundClient;
import dev.caduceus.platform.host.outbound.ProxyRules;
import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

/**
 * The host's outbound HTTP client alone, one streamed call at a time: a virtual thread POSTs a
 * streaming chat request through one {@link OutboundClient} to an in-process zero-delay
 * {@link ScriptedUpstream} that answers 500 SSE chunks, and reads every event. CALLS calls twice
 * (phase 0 warms the JIT, phase 1 is the figure); prints the p50 and p90 of the time to the first
 * event and to the end of the body. Run by {@code bench/outbound-stream}; args: CALLS.
 */
public class OutboundStream {
    public static void main(String[] args) throws Exception {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 400;
        var tokens = new String[500];
        for (int i = 0; i < tokens.length; i++) tokens[i] = "tok" + i + " ";
        var body = "{\"model\":\"scripted-model\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"Write 500 tokens\"}]}"
                .getBytes(StandardCharsets.UTF_8);
        try (var upstream = ScriptedUpstream.start(); var client = new OutboundClient(ProxyRules.direct(), "load")) {
            upstream.recordRequests(false);
            upstream.setDefault(Turn.textChunks(tokens).usage(12, 500));
            var uri = URI.create(upstream.baseUrl() + "/chat/completions");
            var caller = Thread.ofVirtual().start(() -> {
                try {
                    for (int phase = 0; phase < 2; phase++) {
                        var first = new double[calls];
                        var done = new double[calls];
                        for (int i = 0; i < calls; i++) {
                            long t0 = System.nanoTime();
                            var req = OutboundHttp.Request.post(uri, "application/json", body)
                                    .withHeader("Accept", "text/event-stream")
                                    .withTimeouts(Duration.ofSeconds(10), Duration.ofSeconds(300), Duration.ofSeconds(600));
                            try (var ex = client.prepare(req); var r = ex.send()) {
                                var events = r.events();
                                for (boolean any = false; events.next().isPresent(); any = true)
                                    if (!any) first[i] = (System.nanoTime() - t0) / 1e6;
                            }
                            done[i] = (System.nanoTime() - t0) / 1e6;
                        }
                        Arrays.sort(first);
                        Arrays.sort(done);
                        System.out.printf("phase %d%s: first event p50 %.3f ms, p90 %.3f ms; end p50 %.3f ms, p90 %.3f ms%n",
                                phase, phase == 0 ? " (warm-up)" : "", first[calls / 2], first[calls * 9 / 10],
                                done[calls / 2], done[calls * 9 / 10]);
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            caller.join();
        }
    }
}
