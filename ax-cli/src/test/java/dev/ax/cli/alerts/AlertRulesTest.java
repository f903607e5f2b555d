package dev.ax.cli.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The alert rules that ship ({@code compose/prometheus/rules.yml}) are valid, and each fires on its
 * synthetic series and stays silent below its threshold ({@code rules.test.yml}), by promtool
 * itself (Debian's {@code prometheus} package; {@code .ci/run} installs it); and every AX metric a
 * rule reads is one docs/METRICS.md documents (so MetricsIT holds it to a real scrape).
 */
class AlertRulesTest {

  private static final Path RULES = Path.of("..", "compose", "prometheus");

  @Test
  void promtoolChecksTheRulesAndTheirUnitTestsPass() throws Exception {
    Optional<Path> promtool = onPath("promtool");
    assumeTrue(
        promtool.isPresent(),
        "promtool not found on PATH (Debian package prometheus): alert rule tests skipped");
    assertThat(run(promtool.get(), "check", "rules", "rules.yml")).contains("SUCCESS");
    assertThat(run(promtool.get(), "test", "rules", "rules.test.yml")).contains("SUCCESS");
  }

  @Test
  void everyMetricARuleReadsIsDocumented() throws Exception {
    String rules = Files.readString(RULES.resolve("rules.yml"));
    String documented = Files.readString(Path.of("..", "docs", "METRICS.md"));
    Set<String> read = new TreeSet<>();
    Matcher metric = Pattern.compile("\\b(ax_[a-z0-9_]+)").matcher(rules);
    while (metric.find()) {
      read.add(metric.group(1).replaceFirst("_bucket$", ""));
    }
    assertThat(read).hasSizeGreaterThan(5);
    for (String name : read) {
      assertThat(documented).as("%s in docs/METRICS.md", name).contains("`" + name + "`");
    }
  }

  private static String run(Path promtool, String... args) throws Exception {
    String[] command = new String[args.length + 1];
    command[0] = promtool.toString();
    System.arraycopy(args, 0, command, 1, args.length);
    Process process =
        new ProcessBuilder(command).directory(RULES.toFile()).redirectErrorStream(true).start();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("promtool ends").isTrue();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as("promtool %s:%n%s", String.join(" ", args), output).isZero();
    return output;
  }

  private static Optional<Path> onPath(String program) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path candidate = Path.of(dir, program);
      if (Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }
}
