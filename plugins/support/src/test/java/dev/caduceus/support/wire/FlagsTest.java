package dev.caduceus.support.wire;

import dev.caduceus.spi.http.HttpStatusException;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.spi.model.ModelOptions;
import org.junit.jupiter.api.Test;

/** The flag rule (booleans or yes/no words, else the default) and the model options, shared by every endpoint family. */
class FlagsTest {
    static final JsonNodeFactory F = JsonNodeFactory.instance;

    @Test
    void booleansAndTheSpelledValuesCountEverythingElseIsTheDefault() {
        for (var yes : new String[] {"1", "true", "YES", " on "}) assertEquals(true, Flags.parse(F.textNode(yes), false), yes);
        for (var no : new String[] {"0", "False", "no", "OFF"}) assertEquals(false, Flags.parse(F.textNode(no), true), no);
        assertEquals(true, Flags.parse(F.booleanNode(true), false));
        assertEquals(true, Flags.parse(F.numberNode(1), false));
        assertEquals(true, Flags.parse(F.textNode("maybe"), true));
        assertEquals(false, Flags.parse(F.objectNode(), false));
        assertEquals(true, Flags.parse(null, true));
        assertEquals(false, Flags.parse(F.nullNode(), false));
    }

    @Test
    void modelOptionsKeepEffortAndTierAndRefuseNonObjects() {
        var options = dev.caduceus.support.wire.ModelOptionsField.parse(F.objectNode().put("reasoning_effort", "high").put("service_tier", "flex")
                .put("other", 1));
        assertEquals("high", options.reasoningEffort());
        assertEquals("{\"service_tier\":\"flex\"}", options.extra().toString());
        assertEquals(ModelOptions.DEFAULTS, dev.caduceus.support.wire.ModelOptionsField.parse(null));
        var e = assertThrows(HttpStatusException.class, () -> dev.caduceus.support.wire.ModelOptionsField.parse(F.textNode("fast")));
        assertEquals("invalid_model_options", e.error().code());
    }
}
