package dev.ax.dispatcher.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.RetryPolicy;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.store.RunOutput;
import dev.ax.common.testing.TestTasks;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What of a run's output an attempt's ending keeps: masked by its task's secrets, bounded. */
class EndingOutputTest {

  private static TaskSpec task(ExecutorSpec executor, Map<String, String> params) {
    return TestTasks.spec(
        "task-1",
        "default",
        Trigger.Once.after(Duration.ZERO),
        executor,
        Duration.ofSeconds(5),
        RetryPolicy.DEFAULT,
        params);
  }

  @Test
  void theTasksSecretParamsAndHeadersAreMaskedBeforeTheBound() {
    TaskSpec spec =
        task(
            new ExecutorSpec.Http(
                URI.create("https://h/p"),
                "POST",
                Map.of("Authorization", "Bearer tok-9876"),
                null,
                java.util.List.of()),
            Map.of("dbPassword", "pa55-word", "region", "eu"));

    String output =
        Ending.output(spec, "echoed Bearer tok-9876 and pa55-word in eu; password=other");

    assertThat(output).isEqualTo("echoed *** and *** in eu; password=***");
  }

  @Test
  void aLongOutputIsCutToTheStoredBoundAndNoneStaysNone() {
    TaskSpec spec = task(new ExecutorSpec.InProcess("h"), Map.of());

    assertThat(Ending.output(spec, "z".repeat(100_000)))
        .hasSize(RunOutput.MAX_CHARS)
        .endsWith(RunOutput.CUT_MARKER);
    assertThat(Ending.output(spec, null)).isNull();
  }
}
