package dev.caduceus.platform.host.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.host.Poll;
import dev.caduceus.spi.http.HttpStatusException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class BodyBudgetTest {
    static final long MIB = 1 << 20;

    @Test
    void aBodyWaitsForTheRoomAnotherHoldsAndGetsItWhenThatOneCompletes() throws Exception {
        var budget = new BodyBudget(10 * MIB, Duration.ofSeconds(30));
        var first = budget.share();
        first.awaitRoomFor(8 * MIB);
        var second = budget.share();
        var admitted = CompletableFuture.runAsync(() -> second.awaitRoomFor(8 * MIB));
        Poll.until(Duration.ofSeconds(10), "the second body waits", () -> budget.waiting() == 1);
        assertFalse(admitted.isDone());
        first.release();
        admitted.get();
        assertEquals(2 * MIB, budget.free());
        second.release();
        second.release(); // once only
        assertEquals(10 * MIB, budget.free());
    }

    @Test
    void noRoomInTimeIsA503ServerBusyThatSaysWhatToDo() {
        var budget = new BodyBudget(10 * MIB, Duration.ofMillis(50));
        budget.share().awaitRoomFor(6 * MIB);
        var e = assertThrows(HttpStatusException.class, () -> budget.share().awaitRoomFor(6 * MIB));
        assertEquals(503, e.error().status());
        assertEquals("server_busy", e.error().code());
        assertEquals("1", e.error().headers().get("Retry-After"));
        assertTrue(e.error().message().contains("6.0 MiB") && e.error().message().contains("10.0 MiB")
                && e.error().message().contains("server.body_memory_percent"), e.error().message());
        assertEquals(4 * MIB, budget.free(), "the refused body holds nothing");
    }

    @Test
    void aChunkedBodyTakesItsShareAsItArrivesAndIsRefusedAtOnceWhenThereIsNone() {
        var budget = new BodyBudget(10 * MIB, Duration.ofSeconds(30));
        var chunked = budget.share();
        chunked.growTo(3 * MIB);
        chunked.growTo(2 * MIB); // never shrinks
        assertEquals(7 * MIB, budget.free());
        budget.share().awaitRoomFor(6 * MIB);
        var e = assertThrows(HttpStatusException.class, () -> chunked.growTo(5 * MIB));
        assertEquals("server_busy", e.error().code());
        chunked.release();
        assertEquals(4 * MIB, budget.free());
    }

    @Test
    void aBodyLargerThanTheWholeBudgetRunsAlone() throws Exception {
        var budget = new BodyBudget(10 * MIB, Duration.ofSeconds(30));
        var small = budget.share();
        small.awaitRoomFor(1);
        var large = budget.share();
        var admitted = CompletableFuture.runAsync(() -> large.awaitRoomFor(50 * MIB));
        Poll.until(Duration.ofSeconds(10), "the large body waits", () -> budget.waiting() == 1);
        small.release();
        admitted.get();
        assertEquals(0, budget.free());
        large.release();
        assertEquals(10 * MIB, budget.free());
    }

    @Test
    void zeroPercentIsNoLimitAndTheShareIsOfTheMaximumHeap() {
        var none = BodyBudget.ofHeap(0, 128 * MIB);
        assertFalse(none.limited());
        none.share().awaitRoomFor(Long.MAX_VALUE / 2); // never waits
        var budget = BodyBudget.ofHeap(15, 128 * MIB);
        assertTrue(budget.limited());
        assertEquals(128 * MIB / 100 * 15 / BodyBudget.UNIT * BodyBudget.UNIT, budget.bytes());
        assertThrows(IllegalArgumentException.class, () -> BodyBudget.ofHeap(101, 128 * MIB));
    }
}
