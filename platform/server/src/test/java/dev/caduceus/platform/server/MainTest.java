package dev.caduceus.platform.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The plain {@code serve} command line that start-up parses without picocli, and what it leaves to picocli. */
class MainTest {
    @Test
    void serveAloneAndWithEachOptionIsParsedWithoutPicocli() {
        var bare = Main.plainServe(new String[] {"serve"});
        assertNotNull(bare);
        assertNull(bare.host);
        assertNull(bare.port);
        assertNull(bare.options.config);
        assertFalse(bare.options.lenient);

        var all = Main.plainServe(new String[] {"serve", "--host", "0.0.0.0", "--port=9000", "--config", "c.yaml",
                "--lenient"});
        assertNotNull(all);
        assertEquals("0.0.0.0", all.host);
        assertEquals("9000", all.port);
        assertEquals(Path.of("c.yaml"), all.options.config);
        assertTrue(all.options.lenient);
    }

    @Test
    void anythingElseIsLeftToPicocli() {
        String[][] others = {
                {}, {"batch"}, {"plugins"}, {"serve", "--help"}, {"serve", "-h"}, {"serve", "--version"},
                {"serve", "--unknown"}, {"serve", "extra"}, {"serve", "--port"}, {"serve", "--port", "--lenient"},
                {"serve", "--port", "1", "--port", "2"}, {"serve", "--lenient", "--lenient"}, {"serve", "--lenient=true"},
                {"serve", "@args.txt"}, {"serve", "--config", "@file"}, {"serve", "--"}, {"help", "serve"},
        };
        for (var args : others)
            assertNull(Main.plainServe(args), () -> String.join(" ", args));
    }
}
