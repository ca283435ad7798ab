package dev.caduceus.plugin.chat;

import dev.caduceus.spi.tool.Cancellation;
import dev.caduceus.spi.model.ModelEvent;
import dev.caduceus.spi.model.ModelException;
import dev.caduceus.spi.model.ModelRequest;
import dev.caduceus.spi.model.Models;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** Plain model calls that answer every call with the same events (or failure) and record the requests. Thread-safe. */
class ScriptedModels implements Models {
    private final List<ModelEvent> events;
    private final ModelException failure;
    private final List<ModelRequest> requests = new ArrayList<>();

    ScriptedModels(List<ModelEvent> events, ModelException failure) {
        this.events = List.copyOf(events);
        this.failure = failure;
    }

    static ScriptedModels answering(ModelEvent... events) {
        return new ScriptedModels(List.of(events), null);
    }

    @Override public boolean available() { return true; }

    @Override public String defaultModel() { return "scripted-model"; }

    @Override
    public synchronized void stream(ModelRequest request, Consumer<ModelEvent> sink, Cancellation cancel)
            throws ModelException {
        requests.add(request);
        for (var e : events) {
            if (cancel.isCancelled()) return;
            sink.accept(e);
        }
        if (failure != null) throw failure;
    }

    synchronized List<ModelRequest> requests() { return List.copyOf(requests); }
}
