package dev.ax.cli.command;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A top-level {@code ax} command that works on a running AX or its database ({@code up}, {@code
 * submit}, {@code flow}, {@code audit}, {@code requeue}, {@code switch}, {@code migrate}): what
 * each of them takes alike, its {@code --help} and {@code --version}, the {@code --work-dir} that
 * finds the database and the broker, and the spec picocli fills in for usage errors and output.
 * Picocli reads the annotations here as the subclass's own (it ORs {@code mixinStandardHelpOptions}
 * over the class hierarchy). Filled by picocli and run on the main thread.
 */
@Command(mixinStandardHelpOptions = true)
abstract class WorkDirCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin WorkDirOptions workDir;
}
