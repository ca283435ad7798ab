package dev.caduceus.platform.host.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.LayoutBase;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Set;

/**
 * {@code logging.format: json}: exactly one JSON object per event and per line, for log shippers:
 * <pre>{"time":"2026-12-01T21:58:09.123Z","level":"INFO","logger":"dev.caduceus.platform.server.Platform",
 * "thread":"main","message":"…","request_id":"…","run_id":"…","status":200,"error":"…"}</pre>
 * {@code time} in UTC to the millisecond; {@code request_id} and {@code run_id} from the MDC
 * ({@link MdcKeys}); then each SLF4J key-value pair of the event as a field of its own (numbers and
 * booleans as such, anything else as its string; a key that is one of the fields above is written
 * {@code kv_<key>}, and of a key given twice the last value counts); {@code error} holds a throwable's
 * class, message and stack trace. Absent fields are left out; newlines in a message are escaped, so an
 * event never spans lines. Stateless after construction; called from any thread.
 */
public final class JsonLayout extends LayoutBase<ILoggingEvent> {
    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);
    private static final Set<String> FIELDS = Set.of("time", "level", "logger", "thread", "message", "error",
            MdcKeys.REQUEST_ID, MdcKeys.RUN_ID);

    private final JsonFactory json = new JsonFactory(); // thread-safe; one generator per event

    @Override
    public String doLayout(ILoggingEvent event) {
        var out = new StringWriter(256);
        try (JsonGenerator g = json.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("time", TIME.format(event.getInstant()));
            g.writeStringField("level", event.getLevel().toString());
            g.writeStringField("logger", event.getLoggerName());
            g.writeStringField("thread", event.getThreadName());
            if (event.getFormattedMessage() != null) g.writeStringField("message", event.getFormattedMessage());
            var mdc = event.getMDCPropertyMap();
            for (var key : MdcKeys.ALL) {
                var value = mdc.get(key);
                if (value != null) g.writeStringField(key, value);
            }
            if (event.getKeyValuePairs() != null) {
                var pairs = new LinkedHashMap<String, Object>();
                event.getKeyValuePairs().forEach(kv -> pairs.put(FIELDS.contains(kv.key) ? "kv_" + kv.key : kv.key, kv.value));
                for (var pair : pairs.entrySet()) {
                    g.writeFieldName(pair.getKey());
                    value(g, pair.getValue());
                }
            }
            if (event.getThrowableProxy() != null)
                g.writeStringField("error", ThrowableProxyUtil.asString(event.getThrowableProxy()).stripTrailing());
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return out.append(CoreConstants.LINE_SEPARATOR).toString();
    }

    private static void value(JsonGenerator g, Object value) throws IOException {
        switch (value) {
            case null -> g.writeNull();
            case Integer i -> g.writeNumber(i);
            case Long l -> g.writeNumber(l);
            case Short s -> g.writeNumber(s);
            case Byte b -> g.writeNumber(b);
            case Double d -> g.writeNumber(d);   // NaN and the infinities as strings (Jackson's default)
            case Float f -> g.writeNumber(f);
            case BigDecimal d -> g.writeNumber(d);
            case BigInteger i -> g.writeNumber(i);
            case Boolean b -> g.writeBoolean(b);
            default -> g.writeString(String.valueOf(value));
        }
    }
}
