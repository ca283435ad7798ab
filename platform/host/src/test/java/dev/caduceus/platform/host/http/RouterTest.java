package dev.caduceus.platform.host.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.http.HttpHandler;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RouterTest {
    static final HttpHandler NOOP = ex -> { };

    static ServedRoute route(String method, String template) {
        return new ServedRoute(method, template, null, "f", "p", NOOP, TestServer.MAPPER);
    }

    @Test
    void matchesTemplatesAndExtractsParams() {
        var router = Router.of(List.of(route("GET", "/v1/runs/{run_id}"), route("GET", "/v1/runs/{run_id}/events")));
        var match = assertInstanceOf(Router.Match.class, router.lookup("GET", "/v1/runs/run_9/events"));
        assertEquals("/v1/runs/{run_id}/events", match.entry().template());
        assertEquals(Map.of("run_id", "run_9"), match.pathParams());
        assertInstanceOf(Router.NotFound.class, router.lookup("GET", "/v1/runs/run_9/other"));
        assertInstanceOf(Router.NotFound.class, router.lookup("GET", "/v1/runs"));
    }

    @Test
    void sameShapeWithOtherParamNamesSharesOneMethodTable() {
        var router = Router.of(List.of(route("GET", "/api/jobs/{job_id}"), route("DELETE", "/api/jobs/{id}")));
        var get = assertInstanceOf(Router.Match.class, router.lookup("GET", "/api/jobs/abc"));
        assertEquals(Map.of("job_id", "abc"), get.pathParams());
        var delete = assertInstanceOf(Router.Match.class, router.lookup("DELETE", "/api/jobs/abc"));
        assertEquals(Map.of("id", "abc"), delete.pathParams());
        var put = assertInstanceOf(Router.MethodNotAllowed.class, router.lookup("PUT", "/api/jobs/abc"));
        assertEquals(List.of("GET", "DELETE"), put.allowed());
    }

    @Test
    void literalSegmentBeatsParameterAndOtherMethodsFallThrough() {
        var router = Router.of(List.of(route("POST", "/v1/runs/active"), route("GET", "/v1/runs/{run_id}")));
        assertEquals("/v1/runs/active",
                assertInstanceOf(Router.Match.class, router.lookup("POST", "/v1/runs/active")).entry().template());
        assertEquals("/v1/runs/{run_id}",
                assertInstanceOf(Router.Match.class, router.lookup("GET", "/v1/runs/active")).entry().template());
        var delete = assertInstanceOf(Router.MethodNotAllowed.class, router.lookup("DELETE", "/v1/runs/active"));
        assertEquals(List.of("POST", "GET"), delete.allowed());
    }

    @Test
    void duplicateMethodAndTemplateIsRefused() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> Router.of(List.of(route("GET", "/v1/models"), route("get", "/v1/models"))));
        assertTrue(e.getMessage().contains("/v1/models"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> Router.of(List.of(route("GET", "/v1/x/{a}"), route("GET", "/v1/x/{b}"))));
    }

    @Test
    void optionsRoutesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> Router.of(List.of(route("OPTIONS", "/v1/x"))));
    }

    @Test
    void publicRoutesAreMarked() {
        var router = Router.of(List.of(route("GET", "/health"), route("GET", "/v1/models")));
        assertTrue(assertInstanceOf(Router.Match.class, router.lookup("GET", "/health")).publicRoute());
        assertTrue(!assertInstanceOf(Router.Match.class, router.lookup("GET", "/v1/models")).publicRoute());
        var custom = Router.of(List.of(route("GET", "/v1/models")), java.util.Set.of("/v1/models"));
        assertTrue(assertInstanceOf(Router.Match.class, custom.lookup("GET", "/v1/models")).publicRoute());
    }
}
