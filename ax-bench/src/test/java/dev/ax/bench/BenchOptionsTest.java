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
        "--history=-1 | --history must be in 0..200000000 rows: -1",
        "--history=200000001 | --history must be in 0..200000000 rows: 200000001",
        "--history=many | Invalid value for option '--history': 'many' is not a long",
        "--history-expired=101 | --history-expired must be in 0..100: 101",
      })
  void isRefusedWithItsReason(String option, String reason) {
    StringWriter err = new StringWriter();
    CommandLine command = AxCli.commandLine();
    command.setErr(new PrintWriter(err));

    int exit = command.execute("bench", option);

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).contains(reason);
  }
}
