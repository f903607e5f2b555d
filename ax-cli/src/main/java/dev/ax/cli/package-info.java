/**
 * The {@code ax} launcher and CLI: every stage in one JVM ({@code ax up}), submitting a task
 * ({@code ax submit}), a guided tour ({@code ax demo}), dead letters, switches and flow runs; the
 * load harness ({@code ax bench}) is module ax-bench, added as an {@link AxSubcommand}.
 *
 * <p>Packages: {@code command} holds the picocli commands and nothing else of substance; {@code
 * local} starts and stops what runs in this JVM (servers, stages, signals, the work directory);
 * {@code kafka} is the client side (sending commands, reading topics); {@code demo} holds the
 * demo's plan and its evaluation; {@code text} formats output.
 */
package dev.ax.cli;
