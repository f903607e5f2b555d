package dev.ax.cli;

/**
 * A subcommand of {@code ax} that another module adds: a picocli {@code @Command} class that
 * implements this interface and is listed in {@code META-INF/services/dev.ax.cli.AxSubcommand} of
 * its jar, with a public no-argument constructor. {@link AxCli} adds every one it finds on the
 * class path. This keeps tools such as the load harness ({@code ax bench}, module ax-bench) out of
 * the CLI's own class path and out of every stage's: the {@code ax} launcher script runs with them,
 * an image built for the stages does not.
 */
public interface AxSubcommand {}
