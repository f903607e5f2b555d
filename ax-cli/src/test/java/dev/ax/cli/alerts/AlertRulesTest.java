package dev.ax.cli.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ax.common.testing.ExternalTool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
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
    Optional<Path> promtool = ExternalTool.onPath("promtool");
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
    ExternalTool.Result result = ExternalTool.run(RULES, promtool, args);
    assertThat(result.exitCode())
        .as("promtool %s:%n%s", String.join(" ", args), result.output())
        .isZero();
    return result.output();
  }
}
