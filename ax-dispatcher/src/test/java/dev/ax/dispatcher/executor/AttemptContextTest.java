package dev.ax.dispatcher.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.RetryPolicy;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.testing.TestTasks;
import dev.ax.spi.ExecutionContext;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AttemptContextTest {

  private static final TaskSpec TASK =
      TestTasks.spec(
          "task-1",
          "payments",
          Trigger.Once.after(Duration.ZERO),
          ExecutorSpec.inProcess("noop"),
          Duration.ofSeconds(5),
          RetryPolicy.DEFAULT,
          Map.of("amount", "12"));

  @Test
  void theSpisViewComesFromTheTaskAndTheAttempt() {
    AttemptContext attempt =
        new AttemptContext(
            TASK, "task-1@1000", 2, Instant.ofEpochMilli(1000), "trace-1", Instant.EPOCH);
    ExecutionContext context = attempt;

    assertThat(context.taskId()).isEqualTo("task-1");
    assertThat(context.group()).isEqualTo("payments");
    assertThat(context.params()).containsExactlyEntriesOf(Map.of("amount", "12"));
    assertThat(context.idempotencyKey()).isEqualTo("task-1@1000");
    assertThat(AttemptContext.of(context)).isSameAs(attempt);
  }

  @Test
  void aContextTheDispatcherDidNotMakeIsRefusedByTheBuiltIns() {
    ExecutionContext foreign =
        new ExecutionContext() {
          public String taskId() {
            return "t";
          }

          public String group() {
            return "g";
          }

          public Map<String, String> params() {
            return Map.of();
          }

          public String instanceId() {
            return "t@1";
          }

          public int attempt() {
            return 1;
          }

          public Instant dueAt() {
            return Instant.EPOCH;
          }

          public String traceId() {
            return null;
          }

          public Instant deadline() {
            return Instant.EPOCH;
          }
        };

    assertThatThrownBy(() -> AttemptContext.of(foreign))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("built-in executor");
    try (HttpTaskExecutor http =
        new HttpTaskExecutor(new HostAllowList(java.util.List.of("127.0.0.1")), 100)) {
      assertThatThrownBy(() -> http.execute(foreign)).isInstanceOf(IllegalArgumentException.class);
    }
  }
}
