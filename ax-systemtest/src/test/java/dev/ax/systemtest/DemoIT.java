package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.cli.AxCli;
import dev.ax.embedded.junit.WallClock;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@code ax demo} as a newcomer runs it, in a JVM of its own (cold, as on a first run): it exits 0,
 * which it does only when every part ended as planned and no timed start was more than 500 ms late,
 * and its output says so part by part, with dates, the console's address and no raw log line
 * between the results. Tagged wall-clock: the 500 ms bound holds on a machine the demo does not
 * share with other tests.
 */
@WallClock
class DemoIT {

  /** A line of the stages' log (logback's pattern): kept out of the demo's output. */
  private static final Pattern LOG_LINE =
      Pattern.compile("^\\d{4}-\\d{2}-\\d{2}T\\S+ (TRACE|DEBUG|INFO|WARN|ERROR) ");

  @Test
  void theDemoShowsEveryPartEndingAsPlanned() throws Exception {
    Path output = Files.createTempFile("ax-demo-it", ".out");
    ProcessBuilder builder =
        new ProcessBuilder(
                Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m",
                "-cp",
                mainClassPath(),
                AxCli.class.getName(),
                "demo",
                "--deadline",
                "120s")
            .redirectErrorStream(true)
            .redirectOutput(output.toFile());
    builder.environment().keySet().removeIf(name -> name.startsWith("AX_"));
    // Any free port: a developer's `ax up` may hold 8480 (the demo would fall back anyway).
    builder.environment().put("AX_CONSOLE_BIND", "127.0.0.1:0");
    Process demo = builder.start();
    boolean exited = demo.waitFor(4, TimeUnit.MINUTES);
    if (!exited) {
      demo.destroyForcibly();
    }
    String out = Files.readString(output, StandardCharsets.UTF_8);
    assertThat(exited).as(out).isTrue();
    assertThat(demo.exitValue()).as(out).isZero();
    assertThat(out)
        .contains("Demo passed")
        .contains("Console   http://127.0.0.1:")
        .containsPattern("ok +CRON every 2 s")
        .containsPattern("ok +FIXED_RATE every 3 s")
        .containsPattern("ok +FIXED_DELAY 2 s")
        .containsPattern("ok +a flow with a join")
        .containsPattern("ok +retries with backoff into a dead letter, replayed")
        .containsPattern("ok +a one-shot task cancelled before it is due")
        .containsPattern("ok +one-shot tasks")
        .containsPattern("REPLAYED +demo-flaky")
        .containsPattern("OPEN +demo-timeout")
        .containsPattern("SUCCESS +demo-flow-join +due \\d{4}-\\d{2}-\\d{2}T")
        .contains("POST /api/v1/tasks/demo-cron/pause", "POST /api/v1/tasks/demo-cron/resume")
        .doesNotContain("NOT OK");
    List<String> logLines =
        out.lines().filter(line -> LOG_LINE.matcher(line).find()).collect(Collectors.toList());
    assertThat(logLines).as("raw log lines in the demo's output").isEmpty();
    Files.deleteIfExists(output);
  }

  /**
   * This JVM's class path without test classes and test jars (their logback-test.xml is not the
   * CLI's).
   */
  private static String mainClassPath() {
    return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
        .filter(entry -> !entry.endsWith("test-classes") && !entry.endsWith("-tests.jar"))
        .collect(Collectors.joining(File.pathSeparator));
  }
}
