package dev.caduceus.platform.runtime.journal;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import dev.caduceus.spi.agent.RunEvent;
import java.util.HashMap;
import java.util.Map;

/**
 * The logical type name of each {@link RunEvent} ({@code text_delta}, {@code completed}, …), read
 * once from the SPI's {@code @JsonSubTypes}, so the journal and the run records use the one
 * spelling. Immutable.
 */
public final class EventTypes {
    private static final Map<Class<?>, String> NAMES = names();

    private EventTypes() {}

    /** The logical type name of {@code event}. */
    public static String name(RunEvent event) {
        var name = NAMES.get(event.getClass());
        if (name == null) throw new IllegalStateException("RunEvent subtype without a type name: " + event.getClass());
        return name;
    }

    private static Map<Class<?>, String> names() {
        var names = new HashMap<Class<?>, String>();
        for (var type : RunEvent.class.getAnnotation(JsonSubTypes.class).value()) names.put(type.value(), type.name());
        return Map.copyOf(names);
    }
}
