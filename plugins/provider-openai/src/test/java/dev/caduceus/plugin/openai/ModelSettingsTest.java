package dev.caduceus.plugin.openai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.outbound.OutboundHttp;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * What the settings value guarantees whatever the configuration says, where no call on a host shows it
 * in a test's time: the API key never printed, the idle timeout never longer than the call (a longer one
 * could never fire first, so the wire cannot tell), and its five-minute default. How the {@code model.*}
 * keys are read is observed on the real host ({@link OpenAiRequestTest}, {@link OpenAiTransportTest}).
 */
class ModelSettingsTest {

    @Test
    void neverShowsTheApiKey() {
        var settings = new ModelSettings(ModelSettings.OPENAI_BASE_URL, "sk-test", "gpt-4o", Duration.ofSeconds(7), null,
                true, false, null);
        assertFalse(settings.toString().contains("sk-test"), settings.toString());
        assertTrue(settings.toString().contains("apiKey=<redacted>"), settings.toString());
    }

    @Test
    void theIdleTimeoutIsNeverLongerThanTheCallAndFiveMinutesByDefault() {
        var capped = new ModelSettings("http://u/v1", null, "m", Duration.ofSeconds(60), Duration.ofSeconds(900),
                OutboundHttp.Protocol.AUTO, OutboundHttp.Tls.DEFAULT, null, true, false, null);
        assertEquals(Duration.ofSeconds(60), capped.idleTimeout(), "never longer than the whole call");
        var defaults = new ModelSettings("http://u/v1", null, "m", Duration.ofSeconds(600), null, true, false, null);
        assertEquals(Duration.ofSeconds(300), defaults.idleTimeout());
        assertEquals(OutboundHttp.Protocol.AUTO, defaults.protocol());
        assertEquals(OutboundHttp.Tls.DEFAULT, defaults.tls());
    }
}
