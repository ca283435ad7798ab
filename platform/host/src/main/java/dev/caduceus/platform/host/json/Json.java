package dev.caduceus.platform.host.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/**
 * The one place that configures an {@link ObjectMapper}: java.time as ISO strings, unknown
 * properties ignored. Plugins get a {@link #forLoader copy} whose type factory uses their loader.
 */
public final class Json {
    private Json() {}

    /**
     * A new host mapper. Its buffers come from a pool shared by every thread: Jackson's default keeps
     * them per thread, and requests and runs each have a virtual thread of their own, so every use
     * allocated fresh ones.
     */
    public static ObjectMapper newMapper() {
        return JsonMapper.builder(JsonFactory.builder().recyclerPool(JsonRecyclerPools.newConcurrentDequePool()).build())
                .addModule(new JavaTimeModule())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .build();
    }

    /** A copy of {@code host} that resolves types through {@code loader} (a plugin's class loader). */
    public static ObjectMapper forLoader(ObjectMapper host, ClassLoader loader) {
        var copy = host.copy();
        copy.setTypeFactory(copy.getTypeFactory().withClassLoader(loader));
        return copy;
    }
}
