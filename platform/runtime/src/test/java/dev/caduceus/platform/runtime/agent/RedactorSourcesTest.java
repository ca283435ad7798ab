package dev.caduceus.platform.runtime.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.caduceus.platform.host.config.ConfigLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which secrets the server's redactor masks: every one it knows, from each place it knows them from. */
class RedactorSourcesTest {
    @TempDir
    Path home;

    @Test
    void masksConfiguredEnvironmentKeyFileAndKnownSecrets() throws Exception {
        Files.writeString(home.resolve("config.yaml"), """
                server:
                  api_key: server-key-0123456789abcdef
                model:
                  name: some-model-name-long
                  api_key: sk-upstream-0123456789
                  routes:
                    fast: {name: fast-model, base_url: "https://fast.example.test/v1", api_key: sk-route-0123456789}
                gateway:
                  proxy_key: proxy-key-0123456789
                tools:
                  web:
                    search:
                      tavily: {api_key: tvly-0123456789abcdef}
                plugins:
                  some-plugin:
                    auth_token: plugin-token-0123456789
                    client_secret: plugin-secret-0123456789
                    db_password: plugin-password-0123456789
                    endpoint: https://plugin.example.test/not-secret
                """);
        Files.writeString(home.resolve("api_key"), "key-file-0123456789abcdef\n");
        var env = new HashMap<String, String>(Map.of("CADUCEUS_HOME", home.toString(),
                "OPENROUTER_API_KEY", "sk-or-env-0123456789", "SEARXNG_API_KEY", "searx-env-0123456789"));
        var config = new ConfigLoader(env, home.resolve("user")).load(Optional.empty(), List.of()).config();
        var redactor = AgentServices.redactor(config, env, List.of("generated-0123456789abcdef"));

        for (var secret : List.of("server-key-0123456789abcdef", "sk-upstream-0123456789", "sk-route-0123456789",
                "proxy-key-0123456789", "tvly-0123456789abcdef", "plugin-token-0123456789", "plugin-secret-0123456789",
                "plugin-password-0123456789", "key-file-0123456789abcdef", "sk-or-env-0123456789",
                "searx-env-0123456789", "generated-0123456789abcdef"))
            assertEquals("<" + Redactor.MASK + ">", redactor.redact("<" + secret + ">"), secret);
        for (var plain : List.of("some-model-name-long", "https://plugin.example.test/not-secret",
                "https://fast.example.test/v1", home.toString()))
            assertEquals(plain, redactor.redact(plain));
    }
}
