/**
 * The file tools: {@code read_file}, {@code write_file}, {@code patch} (replace and V4A forms) and
 * {@code search_files}, Hermes-compatible and confined to the workspace (protected files always refused). Start
 * at {@link dev.caduceus.plugin.file.FilePlugin}, then {@code PathGuard}. Threading: tools are
 * stateless apart from the synchronized per-session repeat guard and may run concurrently.
 */
package dev.caduceus.plugin.file;
