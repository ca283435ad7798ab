import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;

/**
 * A zero-delay {@link ScriptedUpstream} on its own (every chat answered "ok"), for load scripts that
 * drive a server with an outside generator ({@code bench/steady-ab}): prints its base URL, then serves
 * until killed.
 */
public class UpstreamOnly {
    public static void main(String[] args) throws Exception {
        var upstream = ScriptedUpstream.start();
        upstream.recordRequests(false).setDefault(Turn.text("ok").usage(12, 1));
        System.out.println(upstream.baseUrl());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
