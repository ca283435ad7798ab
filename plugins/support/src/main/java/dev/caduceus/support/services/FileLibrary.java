package dev.caduceus.support.services;

import static java.util.Objects.requireNonNull;

import java.util.Optional;

/**
 * The uploaded files ({@code /v1/files}), offered by the plugin that stores them ({@code endpoint-files}), so that
 * an endpoint family can take a file a request names by id ({@code file_id} in a content part) without depending
 * on that plugin. Found with {@code ctx.service(FileLibrary.class)}; empty when no plugin offers it.
 *
 * <p>Threading: thread-safe; may block on the database (call it from a request thread).
 */
public interface FileLibrary {
    /** The tool with which the agent delivers a workspace file ({@link #delivered}). */
    String DELIVER_TOOL = "deliver_file";

    /**
     * Whether a turn whose {@code messages} these are may have delivered files: only a turn that called a tool can
     * ({@link #DELIVER_TOOL}, or any tool that wrote under {@code outputs/}); only then are its files looked up.
     */
    static boolean mayHaveDelivered(java.util.List<dev.caduceus.spi.message.Message> messages) {
        for (var m : messages) if (!m.toolCalls().isEmpty()) return true;
        return false;
    }

    /**
     * File {@code fileId} when key {@code owner} may use it ({@code admin}: any key's) and it has not expired;
     * else empty (unknown, another key's and expired alike).
     */
    Optional<LibraryFile> find(String owner, boolean admin, String fileId);

    /**
     * The files run {@code runId}'s agent delivered ({@code deliver_file}, or written under {@code outputs/}), oldest first, when key {@code owner} may
     * see them ({@code admin}: any key's); empty for an unknown run or another key's.
     */
    java.util.List<LibraryFile> delivered(String owner, boolean admin, String runId);

    /**
     * Whether this server kept files for run {@code runId} (it ran here, and its agent delivered a file or wrote one
     * under {@code outputs/}): a check in memory, so that a turn that delivered nothing costs no query. False for a
     * run of another node or one long past; ask {@link #delivered} for those.
     */
    boolean keptFor(String runId);

    /**
     * A link to file {@code fileId} that downloads it without the key, for a browser following it from a chat answer
     * (path and query; prefix the server's origin). Valid for days; give it only to the file's owner.
     */
    String downloadLink(String fileId);

    /**
     * One stored file. Immutable.
     *
     * @param filename    its sanitised name
     * @param contentType sniffed from its bytes
     * @param path        where its bytes are on this host (read them, never write); under the state directory
     */
    record LibraryFile(String id, String filename, long bytes, String contentType, String path) {
        public LibraryFile {
            requireNonNull(id, "id");
            requireNonNull(filename, "filename");
            requireNonNull(contentType, "contentType");
            requireNonNull(path, "path");
        }
    }
}
