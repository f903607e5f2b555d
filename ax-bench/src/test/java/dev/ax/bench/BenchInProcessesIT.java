package dev.ax.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.cli.AxCli;
import dev.ax.cli.command.ExitCodes;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code ax bench --stages processes --db-delay}: each stage's own main in a JVM of its own, the
 * database behind the latency proxy, on the bench's embedded servers. Every task runs once, none
 * early, and the transaction timers are read from the stage JVMs' metrics.
 */
class BenchInProcessesIT {

  @Test
  void everyTaskRunsOnceThroughStagesInJvmsOfTheirOwnBehindTheProxy() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine command = AxCli.commandLine();
    command.setOut(new PrintWriter(out, true));
    command.setErr(new PrintWriter(err, true));

    int exit =
        command.execute(
            "bench",
            "-n",
            "200",
            "--spread",
            "1s",
            "--due-in",
            "5s",
            "--warm-up",
            "0",
            "--stages",
            "processes",
            "--db-delay",
            "2ms");

    String report = out.toString();
    assertThat(exit).as("exit code; output:%n%s%n%s", report, err).isEqualTo(ExitCodes.OK);
    assertThat(report)
        .contains("each stage in a JVM of its own (6 JVMs, 1 dispatcher(s))")
        .contains("reached through a proxy adding 2 ms to each round trip")
        .containsPattern(
            "BENCH tasks=200 .* dup=0 missing=0 .* early=0 early_claims=0 .*completed=200 ");
    // The timers come from the ticker's and the dispatcher's /metrics, not this JVM's meters.
    assertThat(report).containsPattern(" marks=[1-9]\\d* claims=[1-9]\\d* ");
  }
}
