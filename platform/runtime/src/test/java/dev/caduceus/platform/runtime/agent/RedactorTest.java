package dev.caduceus.platform.runtime.agent;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URLEncoder;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RedactorTest {
    private static final String MASK = Redactor.MASK;
    /** Lengths 34, 35, 36 and 64: every remainder mod 3, so every tail alignment of base64. */
    private static final List<String> SECRETS = List.of("sk-proj-Ab3dEf9hIjK1mN0pQr5tUvWxYz",
            "sk-or-v1-0a1b2c3d4e5f6a7b8c9d0e1f2a3", "tvly-AbCdEfGhIjKlMnOpQrStUvWxYz0123",
            "3f9a1c0e5b7d2f4a6c8e0b1d3f5a7c9e1b3d5f7a9c0e2b4d6f8a0c1e3b5d7f9a");
    private static final Redactor REDACTOR = Redactor.of(SECRETS);

    @Test
    void clearSecretInsideLongerTokens() {
        for (var s : SECRETS) {
            assertEquals("key=" + MASK + ";", REDACTOR.redact("key=" + s + ";"));
            assertEquals("xx" + MASK + "yy", REDACTOR.redact("xx" + s + "yy"));
            assertEquals(MASK + "\n" + MASK, REDACTOR.redact(s + "\n" + s));
        }
    }

    @Test
    void reversedSecret() {
        for (var s : SECRETS) {
            var reversed = new StringBuilder(s).reverse().toString();
            assertEquals("abc" + MASK + "def", REDACTOR.redact("abc" + reversed + "def"));
        }
        // `cat ../config.yaml | rev`
        var yaml = "model:\n  base_url: https://example.test/v1\n  api_key: " + SECRETS.get(0) + "\n";
        var rev = String.join("\n", yaml.lines().map(l -> new StringBuilder(l).reverse().toString()).toList());
        var out = REDACTOR.redact(rev);
        assertFalse(out.contains(new StringBuilder(SECRETS.get(0)).reverse()));
        assertTrue(out.contains(MASK + " :yek_ipa"), out);
        assertTrue(out.contains("1v/tset.elpmaxe//:sptth :lru_esab"), out);
    }

    @Test
    void encodingsOfTheReversedSecret() {
        // `rev ../config.yaml | base64`, `rev ../api_key | xxd -p`
        for (var s : SECRETS) {
            var reversed = new StringBuilder(s).reverse().toString();
            for (int p = 0; p < 3; p++) {
                var encoded = Base64.getEncoder().encodeToString(bytes(p, reversed, 5));
                assertMasked(encoded, p, s.length(), REDACTOR.redact(encoded), "", "");
            }
            assertEquals("x" + MASK + "y", REDACTOR.redact("x" + HexFormat.of().formatHex(reversed.getBytes(UTF_8)) + "y"));
        }
    }

    @Test
    void hexInBothCasesInsideALongerHexStream() {
        for (var s : SECRETS)
            for (var prefix : List.of("", "A", "KEY=", "line one\n")) {
                for (var hex : List.of(HexFormat.of(), HexFormat.of().withUpperCase())) {
                    var stream = hex.formatHex((prefix + s + "\nmore").getBytes(UTF_8));
                    assertEquals(hex.formatHex(prefix.getBytes(UTF_8)) + MASK + hex.formatHex("\nmore".getBytes(UTF_8)),
                            REDACTOR.redact(stream));
                }
            }
    }

    @Test
    void base64AtEveryAlignmentInsideALongerStream() {
        for (var s : SECRETS)
            for (int p = 0; p < 6; p++)
                for (int q = 0; q < 4; q++) {
                    var stream = bytes(p, s, q);
                    var encoders = List.of(Base64.getEncoder(), Base64.getEncoder().withoutPadding(),
                            Base64.getUrlEncoder(), Base64.getUrlEncoder().withoutPadding());
                    for (var encoder : encoders) {
                        var encoded = encoder.encodeToString(stream);
                        assertMasked(encoded, p, s.length(), REDACTOR.redact("out: " + encoded + " end"), "out: ",
                                " end");
                    }
                }
    }

    @Test
    void base64WrappedAt76ColumnsAsTheBase64CommandDoes() {
        var mime = Base64.getMimeEncoder(76, "\n".getBytes(UTF_8));
        for (var s : SECRETS)
            // 0..2: the secret at each alignment near the start; 50..60: it straddles the first line break
            for (int p : new int[] {0, 1, 2, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 110, 111, 112}) {
                var encoded = mime.encodeToString(bytes(p, s, 60));
                assertTrue(encoded.contains("\n"));
                assertMasked(encoded, p, s.length(), REDACTOR.redact(encoded), "", "");
            }
    }

    @Test
    void wrappedBase64InsideAJsonToolResult() throws Exception {
        // the terminal's result is a JSON document: the line breaks are \n escapes there
        var json = new com.fasterxml.jackson.databind.ObjectMapper();
        var mime = Base64.getMimeEncoder(76, "\n".getBytes(UTF_8));
        for (var s : SECRETS)
            for (int p : new int[] {0, 1, 2, 54, 55, 56, 57}) {
                var encoded = mime.encodeToString(bytes(p, s, 60));
                var result = json.writeValueAsString(Map.of("output", encoded, "exit_code", 0));
                assertTrue(result.contains("\\n"), result);
                var redacted = REDACTOR.redact(result);
                var output = json.readTree(redacted).path("output").asText();
                assertMasked(encoded, p, s.length(), output, "", "");
            }
    }

    @Test
    void aSecretWithABackslashIsFoundRawAndJsonEscaped() throws Exception {
        var secret = "pa\\nss-word-0123";
        var redactor = Redactor.of(List.of(secret));
        assertEquals("x " + MASK + " y", redactor.redact("x " + secret + " y"));
        var json = new com.fasterxml.jackson.databind.ObjectMapper();
        var result = json.writeValueAsString(Map.of("output", "x " + secret + " y\nnext line"));
        assertEquals("x " + MASK + " y\nnext line", json.readTree(redactor.redact(result)).path("output").asText());
    }

    @Test
    void outputOfTheRealBase64Program() throws Exception {
        assumeTrue(new java.io.File("/usr/bin/base64").canExecute() || onPath("base64"), "no base64 program");
        for (var s : SECRETS)
            for (int p : new int[] {0, 1, 2, 54, 55, 56}) {
                // `tr '\0' '\n' < /proc/$PPID/environ | base64`
                var prefix = "HOME=/root\nPATH=/usr/bin:/bin\nTERM=xterm\nSHELL=/bin/bash\nLANG=C.UTF-8\n".substring(0, p);
                var input = (prefix + "OPENAI_API_KEY=" + s + "\nUSER=root\n").getBytes(UTF_8);
                var encoded = run(input, "base64");
                assertTrue(encoded.strip().contains("\n"), "base64 wraps at 76 columns");
                var out = REDACTOR.redact(encoded);
                assertMasked(encoded, prefix.length() + "OPENAI_API_KEY=".length(), s.length(), out, "", "");
                // and `base64 -w 0`
                var flat = run(input, "base64", "-w", "0");
                assertMasked(flat, prefix.length() + "OPENAI_API_KEY=".length(), s.length(), REDACTOR.redact(flat), "",
                        "");
            }
    }

    @Test
    void percentAndJsonEncodedSecrets() {
        var special = "p@ss/w+rd=\"quoted\" x&y";
        var redactor = Redactor.of(List.of(special));
        var form = URLEncoder.encode(special, UTF_8);
        var rfc = form.replace("+", "%20");
        var lower = java.util.regex.Pattern.compile("%[0-9A-F]{2}").matcher(rfc)
                .replaceAll(m -> m.group().toLowerCase(java.util.Locale.ROOT));
        var every = new StringBuilder();
        for (byte b : special.getBytes(UTF_8)) every.append('%').append(HexFormat.of().toHexDigits(b));
        for (var encoded : List.of(form, rfc, lower, every.toString(), every.toString().toUpperCase()))
            assertEquals("?q=" + MASK + "&x=1", redactor.redact("?q=" + encoded + "&x=1"), encoded);
        assertEquals("{\"v\": \"" + MASK + "\"}", redactor.redact("{\"v\": \"p@ss/w+rd=\\\"quoted\\\" x&y\"}"));
    }

    @Test
    void unrelatedTextIsLeftAlone() {
        var text = "total 12\n-rw-r--r-- 1 root root 42 config.yaml\nsk-proj is a prefix, not a key. 0123456789\n"
                + Base64.getEncoder().encodeToString("some other bytes entirely".getBytes(UTF_8));
        assertSame(text, REDACTOR.redact(text));
        assertEquals("short", REDACTOR.redact("short"));
        assertNull(REDACTOR.redact(null));
        assertEquals("", REDACTOR.redact(""));
    }

    @Test
    void valuesShorterThanEightCharactersAreNotMasked() {
        var redactor = Redactor.of(List.of("abc1234", "", " "));
        assertEquals(0, redactor.size());
        assertEquals("abc1234 stays", redactor.redact("abc1234 stays"));
        assertEquals("[REDACTED] goes", Redactor.of(List.of("abc12345")).redact("abc12345 goes"));
    }

    @Test
    void overlappingSecretsAreMaskedAsOneStretch() {
        var redactor = Redactor.of(List.of("secret-part-one", "part-one-and-more"));
        assertEquals("a " + MASK + " b", redactor.redact("a secret-part-one-and-more b"));
        assertEquals(MASK + MASK, redactor.redact("secret-part-onesecret-part-one"));
    }

    @Test
    void builderTakesTheSecretLookingEnvironmentVariables() {
        var env = Map.of("OPENAI_API_KEY", "sk-env-0123456789", "ANTHROPIC_API_KEY", "sk-ant-0123456789",
                "OPENROUTER_API_KEY", "sk-or-0123456789", "GITHUB_TOKEN", "ghp_0123456789", "DB_PASSWORD",
                "hunter2hunter2", "MY_API_KEY_FILE_CONTENT", "contains-api-key", "HOME", "/home/someone/x",
                "PATH", "/usr/local/bin:/usr/bin");
        var redactor = Redactor.builder().add("  configured-secret-1  ").addEnvironment(env).build();
        assertEquals(8, redactor.size()); // six variables, and the configured one with and without its spaces
        for (var name : List.of("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "GITHUB_TOKEN",
                "DB_PASSWORD", "MY_API_KEY_FILE_CONTENT"))
            assertEquals("v=" + MASK, redactor.redact("v=" + env.get(name)), name);
        assertEquals("/home/someone/x:/usr/local/bin:/usr/bin",
                redactor.redact("/home/someone/x:/usr/local/bin:/usr/bin"));
        assertEquals("k=" + MASK, redactor.redact("k=configured-secret-1"));
        for (var name : List.of("API_SERVER_KEY", "GATEWAY_PROXY_KEY", "TAVILY_API_KEY", "SEARXNG_API_KEY", "aws_secret",
                "x_api_key_y"))
            assertTrue(Redactor.secretVariable(name), name);
        assertFalse(Redactor.secretVariable("HOME"));
        assertFalse(Redactor.secretVariable("KEYBOARD_LAYOUT"));
    }

    @Test
    void aLargeOutputWithManyOccurrencesIsMaskedInOnePass() {
        var random = new Random(7);
        var text = new StringBuilder();
        int secrets = 0;
        while (text.length() < 100_000) {
            if (random.nextInt(20) == 0) {
                text.append(SECRETS.get(random.nextInt(SECRETS.size())));
                secrets++;
            } else {
                text.append((char) ('a' + random.nextInt(26)));
            }
        }
        var out = REDACTOR.redact(text.toString());
        assertEquals(secrets, (out.length() - out.replace(MASK, "").length()) / MASK.length());
        for (var s : SECRETS) assertFalse(out.contains(s));
    }

    /**
     * {@code redacted} is {@code before + encoded + after} with one stretch of {@code encoded} masked,
     * ignoring line breaks: every character of the base64 stream that depends on the secret's bytes
     * alone is inside it, and no whole group of the bytes before the secret or character after the
     * secret's last group is.
     */
    private static void assertMasked(String encoded, int p, int n, String redacted, String before, String after) {
        var enc = encoded.replace("\n", "").replace("\r", "");
        var out = redacted.replace("\n", "").replace("\r", "");
        assertTrue(out.startsWith(before) && out.endsWith(after), out);
        out = out.substring(before.length(), out.length() - after.length());
        int i = out.indexOf(MASK);
        assertTrue(i >= 0, "not masked: " + encoded);
        assertEquals(-1, out.indexOf(MASK, i + 1), out);
        var head = out.substring(0, i);
        var tail = out.substring(i + MASK.length());
        assertTrue(enc.startsWith(head) && enc.endsWith(tail), out);
        int a = head.length();
        int b = enc.length() - tail.length();
        int firstSecretOnly = (8 * p + 5) / 6;
        int endSecretOnly = 8 * (p + n) / 6;
        assertTrue(a <= firstSecretOnly && b >= endSecretOnly, "kept part of the secret: " + out + " of " + enc);
        assertTrue(a >= 4 * (p / 3) && b <= 4 * ((p + n + 2) / 3), "masked too much: " + out + " of " + enc);
    }

    private static byte[] bytes(int prefix, String secret, int suffix) {
        var random = new Random(prefix * 31L + suffix);
        var out = new ByteArrayOutputStream();
        var pre = new byte[prefix];
        random.nextBytes(pre);
        out.writeBytes(pre);
        out.writeBytes(secret.getBytes(UTF_8));
        var post = new byte[suffix];
        random.nextBytes(post);
        out.writeBytes(post);
        return out.toByteArray();
    }

    private static String run(byte[] input, String... command) throws IOException, InterruptedException {
        var process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try (var in = process.getOutputStream()) {
            in.write(input);
        }
        var output = new String(process.getInputStream().readAllBytes(), UTF_8);
        assertTrue(process.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue());
        return output;
    }

    private static boolean onPath(String program) {
        for (var dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator))
            if (new java.io.File(dir, program).canExecute()) return true;
        return false;
    }
}
