package dev.caduceus.support.cancel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class OneShotCancellationTest {

    @Test
    void callbacksRunOnceAndAnUnregisteredOneNever() throws Exception {
        var cancellation = new OneShotCancellation();
        var runs = new AtomicInteger();
        var gone = new AtomicInteger();
        cancellation.onCancel(runs::incrementAndGet);
        cancellation.onCancel(gone::incrementAndGet).close();
        assertFalse(cancellation.isCancelled());
        cancellation.cancel();
        cancellation.cancel();
        assertTrue(cancellation.isCancelled());
        assertEquals(1, runs.get());
        assertEquals(0, gone.get());
        cancellation.onCancel(runs::incrementAndGet);
        assertEquals(2, runs.get(), "registered after the cancel: runs at once");
    }
}
