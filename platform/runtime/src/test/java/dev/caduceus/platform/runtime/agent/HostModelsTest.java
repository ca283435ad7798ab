package dev.caduceus.platform.runtime.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.model.ModelEvent;
import dev.caduceus.spi.model.ModelException;
import dev.caduceus.spi.model.ModelOptions;
import dev.caduceus.spi.model.ModelRequest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The host's plain model calls: one provider call, the streaming switch, redaction, and none in proxy mode. */
class HostModelsTest {
    private static final ModelRequest STREAMED = new ModelRequest("cheap", List.of(Message.user("title?")), List.of(),
            ModelOptions.DEFAULTS, true);

    @Test
    void oneCallThroughTheProvider() throws Exception {
        var model = new ScriptedModel().answer("Greetings");
        var models = new HostModels(model, true, true, "cheap", Redactor.builder().build());
        var events = new ArrayList<ModelEvent>();
        models.stream(STREAMED, events::add, new RunCancellation());
        assertEquals(1, model.requests.size());
        assertTrue(model.requests.getFirst().stream());
        assertEquals(new ModelEvent.TextDelta("Greetings"), events.getFirst());
        assertTrue(models.available());
        assertEquals("cheap", models.defaultModel());
    }

    @Test
    void modelStreamFalseMeansWholeAnswers() throws Exception {
        var model = new ScriptedModel().answer("x");
        new HostModels(model, true, false, "cheap", Redactor.builder().build())
                .stream(STREAMED, e -> { }, new RunCancellation());
        assertFalse(model.requests.getFirst().stream());
    }

    @Test
    void errorMessagesAreRedacted() {
        var model = new ScriptedModel().fail(401, false, "bad key sk-secret-123456789");
        var models = new HostModels(model, true, true, "cheap", Redactor.builder().add("sk-secret-123456789").build());
        var e = assertThrows(ModelException.class, () -> models.stream(STREAMED, x -> { }, new RunCancellation()));
        assertFalse(e.getMessage().contains("sk-secret-123456789"), e.getMessage());
        assertEquals(401, e.status());
    }

    @Test
    void proxyModeMakesNoPlainCalls() {
        var none = HostModels.none();
        assertFalse(none.available());
        assertThrows(IllegalStateException.class, () -> none.stream(STREAMED, x -> { }, new RunCancellation()));
        assertFalse(new HostModels(new ScriptedModel(), false, true, "m", Redactor.builder().build()).available(),
                "model.* not configured");
    }
}
