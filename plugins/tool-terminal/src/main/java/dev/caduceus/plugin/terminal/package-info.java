/**
 * The {@code terminal} and {@code process} tools: shell commands in the
 * session's directory with timeouts, output caps, process-tree kill, the dangerous-command guard
 * and background processes. Start at {@link dev.caduceus.plugin.terminal.TerminalPlugin}, then
 * {@code TerminalTool} and {@code ShellProcess}. Threading: tools are called concurrently across
 * sessions; each command's stdout and stderr are pumped on two virtual threads.
 */
package dev.caduceus.plugin.terminal;
