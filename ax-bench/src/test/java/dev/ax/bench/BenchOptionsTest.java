package dev.ax.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.cli.AxCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** Options {@code ax bench} refuses before it starts anything (exit 2, one line saying why). */
class BenchOptionsTest {

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "--peer=quartz | --peer must be db-scheduler (the only peer so far): quartz",
        "--peer-strategy=poll | --peer-strategy must be lock-and-fetch or fetch: poll",
        "--peer-threads=0 | --peer-threads must be in 1..500: 0",
        "--peer-threads=501 | --peer-threads must be in 1..500: 501",
        "--peer-polling=0s | --peer-polling must be positive: PT0S",
        "--peer-polling=-1s | Invalid value for option '--peer-polling': '-1s' is negative",
        "--tasks=0 | --tasks must be in 1..1000000: 0",
        "--stages=cloud | --stages must be in-jvm or processes: cloud",
        "--db-buffer-pool=-1 | --db-buffer-pool must be in 0..65536: -1",
        "--db-buffer-pool=65537 | --db-buffer-pool must be in 0..65536: 65537",
        "--history=-1 | --history must be in 0..200000000 rows: -1",
        "--history=200000001 | --history must be in 0..200000000 rows: 200000001",
        "--history=many | Invalid value for option '--history': 'many' is not a long",
        "--history-expired=101 | --history-expired must be in 0..100: 101",
        "--mix=peak | --mix must be seed: peak",
        "--mix=seed --mix-tasks=0 | --mix-tasks must be in 1..200000: 0",
        "--mix=seed --mix-tasks=200001 | --mix-tasks must be in 1..200000: 200001",
        "--mix=seed --duration=5s | --duration must be in 10s..24h: 5s",
        "--mix=seed --duration=2d | --duration must be in 10s..24h: 48h",
        "--mix=seed --duration=soon | Invalid value for option '--duration'",
        "--soak=0s | --soak must be in 10s..24h: 0s",
        "--soak=-1m | Invalid value for option '--soak'",
        "--soak=2m --rate=0 | --rate must be in 1..20000: 0",
        "--soak=2m --rate=20001 | --rate must be in 1..20000: 20001",
        "--soak=2m --rate=fast | Invalid value for option '--rate': 'fast' is not an int",
        "--soak=2m --soak-window=3m | --soak-window must be in 10s..2m: 3m",
        "--soak=2m --soak-window=1s | --soak-window must be in 10s..2m: 1s",
        "--soak=2m --mix=seed | --mix and --soak are two benches: one of them",
        "--soak=2m --runs=2 | --mix and --soak take neither --peer nor --runs",
      })
  void isRefusedWithItsReason(String option, String reason) {
    StringWriter err = new StringWriter();
    CommandLine command = AxCli.commandLine();
    command.setErr(new PrintWriter(err));

    int exit = command.execute(("bench " + option).split(" "));

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).contains(reason);
  }
}
