package dev.ax.common.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A program of the machine that a test runs (promtool, docker-compose): found on the PATH, run in a
 * folder with a deadline, its exit code and output (stdout and stderr together) returned.
 */
public final class ExternalTool {

  /** What a run ended with. */
  public record Result(int exitCode, String output) {}

  private static final long DEADLINE_SECONDS = 60;

  private ExternalTool() {}

  /** {@code program} on the PATH, if it is there and executable. */
  public static Optional<Path> onPath(String program) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path candidate = Path.of(dir, program);
      if (Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /** Runs {@code program} with {@code args} in {@code dir}; fails the test if it does not end. */
  public static Result run(Path dir, Path program, String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(program.toString());
    command.addAll(List.of(args));
    Process process =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    assertThat(process.waitFor(DEADLINE_SECONDS, TimeUnit.SECONDS))
        .as("%s ends within %d s", program.getFileName(), DEADLINE_SECONDS)
        .isTrue();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return new Result(process.exitValue(), output);
  }
}
