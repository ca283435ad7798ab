package dev.caduceus.plugin.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.caduceus.platform.testkit.FrontendFixtures;
import dev.caduceus.platform.testkit.HeldTurn;
import dev.caduceus.platform.testkit.Turn;
import org.junit.jupiter.api.Test;

/**
 * A client that leaves exactly while its housekeeping request's plain call is at the model, on the real
 * host: no agent run follows, and the host serves the next request as ever. (That the plain call sees
 * its cancellation from inside, and that nothing is written to the departed client, cannot be
 * observed from outside a real host; the rest of housekeeping is {@link ChatHousekeepingTest}'s.)
 */
class HousekeepingClientLeavesTest {
    private static final String TITLE = FrontendFixtures.load("open-webui-0.9.5.jsonl").get(2).path("body").toString();

    @Test
    void aClientThatLeavesDuringTheCallStartsNoRun() throws Exception {
        try (var chat = ChatHost.start()) {
            var held = new HeldTurn(Turn.text("{\"title\": \"Hi\"}"));
            chat.upstream.enqueue(held);
            try (var socket = chat.postRaw(TITLE)) {
                held.awaitArrival(); // the plain call is at the model
                socket.close();      // and the client leaves
            } finally {
                held.release();
            }
            chat.upstream.enqueue(Turn.text("{\"title\": \"Again\"}"));
            var again = chat.post(TITLE);
            assertEquals(200, again.status(), again.body());
            assertEquals("{\"title\": \"Again\"}", again.json().path("choices").get(0).path("message").path("content").asText());
            assertEquals(2, chat.upstream.chatRequests().size(), "two plain calls and no agent run's");
            assertEquals(0, chat.activeRuns());
        }
    }
}
