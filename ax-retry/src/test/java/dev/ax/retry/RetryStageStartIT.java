package dev.ax.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.awaitility.Awaitility.await;

import dev.ax.common.config.CommonConfig;
import dev.ax.common.kafka.KafkaConnection;
import dev.ax.common.kafka.LoopWatcher;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.stage.StageContext;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.TcpProxy;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TestTasks;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The retry stage started while the broker does not answer: its broker address is a relay that
 * refuses every connection until the test restores it; the real broker stays up behind it.
 */
@ExtendWith(AxInfraExtension.class)
class RetryStageStartIT {

  @Test
  void aStartWhileTheBrokerIsAwayGoesOnAndTheStageDispatchesRetriesOnceItAnswers(AxTestEnv env)
      throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env);
        TcpProxy relay = TcpProxy.inFrontOfBroker(env.bootstrapServers())) {
      relay.cut();
      StageContext context =
          new StageContext(
              CommonConfig.from(runtime.config()),
              KafkaConnection.plaintext(relay.bootstrapServers()),
              runtime.topics(),
              runtime.dataSource(),
              runtime.dataSource(),
              runtime.clock(),
              "retry-late",
              new SimpleMeterRegistry(),
              LoopWatcher.LOG_ONLY);
      try (RetryStage stage = new RetryStage(context, RetryConfig.from(runtime.config()))) {
        // It used to read the retry topic's partitions here and throw after max.block.ms.
        assertThatCode(stage::start)
            .as("a broker away at start fails no start")
            .doesNotThrowAnyException();

        // Holds the outage open while the stage runs; its result is awaited below.
        Thread.sleep(2_000);
        long nowMs = runtime.clock().millis();
        new TaskStore(runtime.dataSource())
            .create(
                List.of(new NewTask(TestTasks.onceNoop("retried"), "trace", nowMs)), "test", nowMs);
        int failed =
            new Jdbc(runtime.dataSource())
                .inTransaction(
                    "mark a retry due now",
                    tx ->
                        tx.update(
                            "UPDATE ax_instance SET status = 'RETRYING', attempt = 1,"
                                + " next_attempt_at_ms = ? WHERE task_id = 'retried'",
                            st -> st.setLong(1, nowMs)));
        assertThat(failed).as("an attempt failed, its retry due now").isEqualTo(1);

        relay.restore();
        InstanceStore instances = new InstanceStore(runtime.dataSource());
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () -> instances.findByTask("retried").get(0).status() == InstanceStatus.DISPATCHED);
      }
    }
  }
}
