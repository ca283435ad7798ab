package dev.caduceus.plugin.file;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes planned {@link FileChange}s all or nothing: every new content is first staged in a temp
 * file beside its target (parents created); only when all are staged are they renamed in and the
 * deletions done. If a rename or deletion fails, the files already changed are put back from their
 * old content. Stateless.
 */
final class ChangeSet {
    private ChangeSet() {}

    /** Applies the changes; on failure nothing has changed (best effort for the rollback itself). */
    static void apply(List<FileChange> changes) throws IOException {
        var staged = new ArrayList<AtomicFiles.Staged>();
        try {
            for (var c : changes) {
                if (c.after() == null) continue;
                AtomicFiles.createParents(c.file());
                staged.add(AtomicFiles.stage(c.file(), c.after().getBytes(UTF_8)));
            }
            var done = new ArrayList<FileChange>();
            try {
                int s = 0;
                for (var c : changes) {
                    if (c.after() == null) Files.delete(c.file());
                    else staged.get(s++).commit();
                    done.add(c);
                }
            } catch (IOException | RuntimeException e) {
                rollback(done);
                throw e;
            }
        } finally {
            staged.forEach(AtomicFiles.Staged::discard);
        }
    }

    private static void rollback(List<FileChange> done) {
        for (var c : done.reversed()) {
            try {
                if (c.before() == null) Files.deleteIfExists(c.file());
                else AtomicFiles.write(c.file(), c.before().getBytes(UTF_8));
            } catch (IOException | RuntimeException ignored) {
                // keep restoring the others
            }
        }
    }
}
