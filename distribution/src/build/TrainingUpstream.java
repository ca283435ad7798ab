import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * The model the AOT cache's training run talks to (train-aot.sh): {@code POST /v1/chat/completions}
 * answered with one short completion, as JSON or as server-sent events when the request asks to stream.
 * Only the JDK, so that the build needs nothing more. Prints its base URL, then serves until killed.
 * Usage: java TrainingUpstream.java
 */
public class TrainingUpstream {
    public static void main(String[] args) throws IOException {
        var server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.createContext("/v1/chat/completions", TrainingUpstream::complete);
        server.start();
        System.out.println("http://127.0.0.1:" + server.getAddress().getPort() + "/v1");
        System.out.flush();
    }

    private static void complete(HttpExchange exchange) throws IOException {
        var request = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        boolean stream = request.replace(" ", "").contains("\"stream\":true");
        String body;
        if (stream) {
            body = chunk("{\"role\":\"assistant\",\"content\":\"\"}", null) + chunk("{\"content\":\"ok\"}", null)
                    + chunk("{}", "\"stop\"")
                    + "data: {\"id\":\"chatcmpl-training\",\"object\":\"chat.completion.chunk\",\"created\":0,"
                    + "\"model\":\"training\",\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":1,"
                    + "\"total_tokens\":13}}\n\ndata: [DONE]\n\n";
            exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
        } else {
            body = "{\"id\":\"chatcmpl-training\",\"object\":\"chat.completion\",\"created\":0,\"model\":\"training\","
                    + "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"ok\"},"
                    + "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":1,"
                    + "\"total_tokens\":13}}";
            exchange.getResponseHeaders().add("Content-Type", "application/json");
        }
        var bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(200, bytes.length);
        try (var out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static String chunk(String delta, String finish) {
        return "data: {\"id\":\"chatcmpl-training\",\"object\":\"chat.completion.chunk\",\"created\":0,\"model\":\"training\","
                + "\"choices\":[{\"index\":0,\"delta\":" + delta + ",\"finish_reason\":" + finish + "}]}\n\n";
    }
}
