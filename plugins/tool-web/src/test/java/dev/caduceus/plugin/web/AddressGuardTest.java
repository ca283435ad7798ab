package dev.caduceus.plugin.web;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetAddress;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class AddressGuardTest {
    private static final AddressGuard DEFAULT = new AddressGuard(false, List.of(), InetAddress::getAllByName);
    private static final AddressGuard PRIVATE_ALLOWED = new AddressGuard(true, List.of("*.corp.example", "localhost"),
            InetAddress::getAllByName);

    @ParameterizedTest
    @ValueSource(strings = {"http://127.0.0.1/", "http://127.8.9.10:8080/x", "http://10.0.0.1/", "http://172.16.5.4/",
            "http://192.168.1.1/", "http://169.254.169.254/latest/meta-data/", "http://[::1]/", "http://0.0.0.0/",
            "http://100.64.0.1/", "http://198.18.0.1/", "http://224.0.0.1/", "http://255.255.255.255/",
            "http://[fd00::1]/", "http://[fe80::1]/", "http://[::ffff:127.0.0.1]/", "http://[::ffff:a9fe:a9fe]/",
            "http://[::127.0.0.1]/", "http://[64:ff9b::a00:1]/", "http://[2002:7f00:1::]/", "https://[::]/",
            "http://[ff02::1]/", "http://localhost/"})
    void refusesInternalAddressesByDefault(String url) {
        var e = assertThrows(AddressGuard.Refused.class, () -> DEFAULT.check(URI.create(url)));
        assertEquals(AddressGuard.BLOCKED, e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"file:///etc/passwd", "ftp://example.com/file", "gopher://x/", "javascript:alert(1)"})
    void refusesOtherSchemes(String url) {
        var e = assertThrows(AddressGuard.Refused.class, () -> DEFAULT.check(URI.create(url)));
        assertEquals("Unsupported URL scheme: " + URI.create(url).getScheme(), e.getMessage());
    }

    @Test
    void allowsPublicAddresses() {
        var guard = new AddressGuard(false, List.of(), host -> new InetAddress[] {InetAddress.getByName("93.184.216.34")});
        assertDoesNotThrow(() -> guard.check(URI.create("https://example.com/page")));
        assertDoesNotThrow(() -> DEFAULT.check(URI.create("http://[2606:4700::1111]/")));
    }

    @Test
    void refusesANameThatResolvesToAnyPrivateAddress() {
        var guard = new AddressGuard(false, List.of(), host -> new InetAddress[] {
                InetAddress.getByName("93.184.216.34"), InetAddress.getByName("10.1.2.3")});
        assertThrows(AddressGuard.Refused.class, () -> guard.check(URI.create("http://rebind.example/")));
    }

    @Test
    void allowPrivateLiftsPrivateButNeverMetadata() {
        assertDoesNotThrow(() -> PRIVATE_ALLOWED.check(URI.create("http://127.0.0.1:9/")));
        assertDoesNotThrow(() -> PRIVATE_ALLOWED.check(URI.create("http://10.0.0.1/")));
        for (var url : List.of("http://169.254.169.254/", "http://[fd00:ec2::254]/", "http://metadata.google.internal/",
                "http://[::ffff:169.254.169.254]/"))
            assertThrows(AddressGuard.Refused.class, () -> PRIVATE_ALLOWED.check(URI.create(url)), url);
    }

    @Test
    void blockedHostGlobsAreAlwaysRefused() {
        var e = assertThrows(AddressGuard.Refused.class, () -> PRIVATE_ALLOWED.check(URI.create("http://wiki.corp.example/")));
        assertEquals("Blocked: host wiki.corp.example is in tools.web.blocked_hosts", e.getMessage());
        assertThrows(AddressGuard.Refused.class, () -> PRIVATE_ALLOWED.check(URI.create("http://LOCALHOST./")));
    }

    @Test
    void unresolvableHostIsRefusedWithItsName() {
        var guard = new AddressGuard(false, List.of(), host -> { throw new java.net.UnknownHostException(host); });
        var e = assertThrows(AddressGuard.Refused.class, () -> guard.check(URI.create("http://nowhere.invalid/")));
        assertEquals("Could not resolve host: nowhere.invalid", e.getMessage());
    }
}
