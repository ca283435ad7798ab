/**
 * The file tools: {@code read_file}, {@code write_file}, {@code patch} (replace and V4A forms) and
 * {@code search_files}, Hermes-compatible (tools.md §7) and confined to the workspace (§5.2). Start
 * at {@link dev.caduceus.plugin.file.FilePlugin}, then {@code PathGuard}. Threading: tools are
 * stateless apart from the synchronized per-session repeat guard and may run concurrently.
 */
package dev.caduceus.plugin.file;
