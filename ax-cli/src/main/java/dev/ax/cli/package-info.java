/**
 * The {@code ax} launcher and CLI: every stage in one JVM ({@code ax up}), submitting a task
 * ({@code ax submit}), a guided tour ({@code ax demo}) and a load harness ({@code ax bench}).
 *
 * <p>Packages: {@code cli} holds the picocli commands and nothing else of substance; {@code local}
 * starts and stops what runs in this JVM (servers, stages, signals, the work directory); {@code
 * kafka} is the client side (sending commands, reading topics); {@code demo} and {@code bench} hold
 * the plans and the evaluation of those two commands; {@code text} formats output.
 */
package dev.ax.cli;
