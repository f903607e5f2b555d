package dev.ax.cli.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.store.TaskRun;
import org.junit.jupiter.api.Test;

/** How {@code ax task runs} prints a run's output: one line in the table, never terminal codes. */
class TaskRunsCommandTest {

  private static TaskRun run(String output, String error) {
    return new TaskRun("t@1", 1, "FAILED", 1L, 2L, 1L, error, output);
  }

  @Test
  void theRowShowsTheOutputOnOneLineElseTheError() {
    assertThat(TaskRunsCommand.excerpt(run("HTTP 503\nX-Request-Id: r-1\n\n  busy  ", "HTTP 503")))
        .isEqualTo("HTTP 503 X-Request-Id: r-1 busy");
    assertThat(TaskRunsCommand.excerpt(run(null, "exit code 2"))).isEqualTo("exit code 2");
    assertThat(TaskRunsCommand.excerpt(run(null, null))).isEmpty();
  }

  @Test
  void controlCharactersOtherThanLineBreaksAndTabsAreShownAsReplacements() {
    assertThat(TaskRunsCommand.printable("ok\u001b]0;owned\u0007\tdone\n"))
        .isEqualTo("ok\uFFFD]0;owned\uFFFD\tdone\n");
  }
}
