package dev.caduceus.plugin.mcp;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Hermes' names for MCP tools: {@code mcp_<server>_<tool>} with every character outside
 * {@code [A-Za-z0-9_]} turned into {@code _}; the toolset {@code mcp-<server>} per server and
 * {@code mcp} over all of them. A name longer than the 64 characters a model provider accepts keeps
 * its first 55 characters and gets {@code _} and 8 hex digits of its SHA-256 (stable across restarts,
 * as Hermes clamps it). Stateless.
 */
final class ToolNames {
    static final String ALL_TOOLSET = "mcp";
    private static final int MAX = 64;

    private ToolNames() {}

    /** {@code value} with every character outside {@code [A-Za-z0-9_]} replaced by {@code _}. */
    static String component(String value) {
        var out = new StringBuilder(value.length());
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            out.append((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ? c : '_');
        }
        return out.toString();
    }

    /** The agent's name for the server's tool {@code tool}. */
    static String tool(String server, String tool) {
        return clamp("mcp_" + component(server) + "_" + component(tool));
    }

    /** The toolset of one server. */
    static String toolset(String server) {
        return "mcp-" + server;
    }

    private static String clamp(String name) {
        if (name.length() <= MAX) return name;
        try {
            var digest = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
            return name.substring(0, MAX - 9) + "_" + HexFormat.of().formatHex(digest, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
