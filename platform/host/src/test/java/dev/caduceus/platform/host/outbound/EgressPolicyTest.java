package dev.caduceus.platform.host.outbound;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.util.Promise;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EgressPolicyTest {
    private static final EgressPolicy PUBLIC = EgressPolicy.publicOnly(List.of("*.corp.example", "intranet"));

    private static InetAddress literal(String text) {
        try {
            return InetAddress.getByName(text); // address literals only: parsed, never looked up
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "127.8.9.10", "10.0.0.1", "172.16.5.4", "172.31.255.255", "192.168.1.1",
            "169.254.169.254", "0.0.0.0", "100.64.0.1", "198.18.0.1", "192.0.2.5", "198.51.100.7", "203.0.113.9",
            "224.0.0.1", "240.0.0.1", "255.255.255.255", "::1", "::", "fd00::1", "fe80::1", "ff02::1", "2001:db8::1",
            "::ffff:127.0.0.1", "::ffff:a9fe:a9fe", "::127.0.0.1", "64:ff9b::a00:1", "2002:7f00:1::"})
    void internalAddressesAreRefusedWhenPublicOnly(String address) {
        assertFalse(PUBLIC.allows(literal(address)), address);
        assertTrue(EgressPolicy.any().allows(literal(address)), "any allows " + address);
    }

    @ParameterizedTest
    @ValueSource(strings = {"93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8",
            "64:ff9b::808:808", "2002:808:808::"})
    void publicAddressesAreAllowed(String address) {
        assertTrue(PUBLIC.allows(literal(address)), address);
    }

    @Test
    void privateAllowedLetsInternalAddressesThroughButNeverMetadata() throws Exception {
        var local = EgressPolicy.privateAllowed(List.of(" localhost ", "*.corp.example"));
        for (var address : List.of("127.0.0.1", "10.0.0.1", "192.168.1.1", "::1", "fd00::1", "169.254.1.1", "93.184.216.34"))
            assertTrue(local.allows(literal(address)), address);
        for (var address : List.of("169.254.169.254", "fd00:ec2::254", "::ffff:a9fe:a9fe", "::169.254.169.254",
                "64:ff9b::a9fe:a9fe", "2002:a9fe:a9fe::"))
            assertFalse(local.allows(literal(address)), address);
        assertEquals(Optional.of("host localhost is blocked by configuration"), local.refuseName("LOCALHOST."));
        var single = EgressPolicy.publicOnly(List.of("db?.corp.test"));
        assertTrue(single.refuseName("db1.corp.test").isPresent());
        assertEquals(Optional.empty(), single.refuseName("db12.corp.test"));
        assertEquals(Optional.of("host metadata.google.internal is a cloud metadata service"),
                local.refuseName("metadata.google.internal"));
        var resolver = new GuardedResolver(local, host -> new InetAddress[] {literal("169.254.169.254")});
        var e = assertThrows(EgressRefusedException.class, () -> resolver.resolve("rebind.test", 80));
        assertEquals("Blocked: rebind.test resolves only to cloud metadata addresses", e.getMessage());
        assertEquals(local.toString(), "EgressPolicy[private-allowed, 2 blocked hosts]");
    }

    @Test
    void blockedAndMetadataNamesAreRefusedBeforeAnyLookup() {
        assertEquals(Optional.of("host a.corp.example is blocked by configuration"), PUBLIC.refuseName("A.Corp.Example."));
        assertEquals(Optional.of("host intranet is blocked by configuration"), PUBLIC.refuseName("intranet"));
        assertEquals(Optional.of("host metadata.google.internal is a cloud metadata service"),
                PUBLIC.refuseName("metadata.google.internal"));
        assertEquals(Optional.empty(), PUBLIC.refuseName("corp.example.org"));
        assertEquals(Optional.empty(), EgressPolicy.any().refuseName("metadata"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"localhost", "LocalHost.", "api.localhost", "0x7f000001", "0x7f.1", "0177.0.0.1",
            "2130706433", "127.1", "127.0.0.01", "10.0.0.0x1"})
    void loopbackNamesAndOddlyWrittenAddressesAreRefusedByName(String host) {
        // a proxy resolves these itself (to loopback), so through a proxy the name is all there is to check
        assertTrue(PUBLIC.refuseName(host).isPresent(), host);
        assertEquals(Optional.empty(), EgressPolicy.any().refuseName(host));
    }

    @ParameterizedTest
    @ValueSource(strings = {"93.184.216.34", "8.8.8.8", "example.com", "123.example.com", "localhost.example.com",
            "0x.example.com", "1e100.net"})
    void ordinaryNamesAndDottedQuadsAreLeftToTheAddressCheck(String host) {
        assertEquals(Optional.empty(), PUBLIC.refuseName(host), host);
    }

    @Test
    void theResolverChecksTheAddressesTheConnectionWillUseEachTime() throws Exception {
        // a name that answers a public address first and loopback the second time (DNS rebinding)
        var calls = new AtomicInteger();
        var resolver = new GuardedResolver(PUBLIC, host -> new InetAddress[] {
                literal(calls.getAndIncrement() == 0 ? "93.184.216.34" : "127.0.0.1")});
        assertEquals(List.of(new InetSocketAddress(literal("93.184.216.34"), 443)), resolver.resolve("rebind.test", 443));
        var e = assertThrows(EgressRefusedException.class, () -> resolver.resolve("rebind.test", 443));
        assertEquals("Blocked: rebind.test resolves only to private or internal network addresses", e.getMessage());
    }

    @Test
    void refusedAddressesAreDroppedAndTheRestKeepTheirOrder() throws Exception {
        var resolver = new GuardedResolver(PUBLIC, host -> new InetAddress[] {
                literal("10.0.0.7"), literal("2606:4700::1111"), literal("::1"), literal("93.184.216.34")});
        assertEquals(List.of(new InetSocketAddress(literal("2606:4700::1111"), 80), new InetSocketAddress(literal("93.184.216.34"), 80)),
                resolver.resolve("mixed.test", 80));
        var any = new GuardedResolver(EgressPolicy.any(), host -> new InetAddress[] {literal("127.0.0.1")});
        assertEquals(List.of(new InetSocketAddress(literal("127.0.0.1"), 11434)), any.resolve("localhost", 11434));
    }

    @Test
    void jettyGetsTheFailureThroughItsPromise() throws Exception {
        var resolver = new GuardedResolver(PUBLIC, host -> { throw new AssertionError("a blocked name is never looked up"); });
        var failure = new CompletableFuture<Throwable>();
        var got = new ArrayList<InetSocketAddress>();
        resolver.resolve("x.corp.example", 443, Map.of(), new Promise<>() {
            @Override public void succeeded(List<InetSocketAddress> result) { got.addAll(result); failure.complete(null); }
            @Override public void failed(Throwable x) { failure.complete(x); }
        });
        var e = failure.get();
        assertTrue(e instanceof EgressRefusedException, String.valueOf(e));
        assertEquals("Blocked: host x.corp.example is blocked by configuration", e.getMessage());
        assertTrue(got.isEmpty());
    }
}
