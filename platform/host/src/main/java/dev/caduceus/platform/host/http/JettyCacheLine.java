package dev.caduceus.platform.host.http;

/**
 * Presets {@code org.eclipse.jetty.util.referencesPerCacheLine}, which Jetty's {@code MemoryUtils} reads
 * to pad its queues against false sharing. Without it, {@code MemoryUtils} asks the platform MBean server
 * whether oops are compressed, and starting JMX for that one answer cost 0.25-0.5 s of every cold start
 * (the first {@code QueuedThreadPool}). The JVM compresses oops by default for heaps below 32 GB, so 4-byte
 * references are assumed there and 8-byte ones above; a wrong guess (compressed oops switched off by hand)
 * only changes the padding. A value already set (JAVA_OPTS) is kept.
 */
final class JettyCacheLine {
    static final String PROPERTY = "org.eclipse.jetty.util.referencesPerCacheLine";
    private static final int CACHE_LINE_BYTES = 64;                  // Jetty's own default
    private static final long COMPRESSED_OOPS_LIMIT = 32L << 30;

    private JettyCacheLine() {}

    /** Sets the property unless it is set; call before the first Jetty thread pool is made. */
    static void preset() {
        if (System.getProperty(PROPERTY) != null) return;
        System.setProperty(PROPERTY, Integer.toString(referencesPerCacheLine(Runtime.getRuntime().maxMemory())));
    }

    static int referencesPerCacheLine(long maxHeapBytes) {
        return CACHE_LINE_BYTES / (maxHeapBytes < COMPRESSED_OOPS_LIMIT ? Integer.BYTES : Long.BYTES);
    }
}
