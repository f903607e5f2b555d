package dev.ax.retry;

import static org.assertj.core.api.Assertions.assertThatCode;

import dev.ax.common.config.CommonConfig;
import dev.ax.common.kafka.KafkaConnection;
import dev.ax.common.stage.StageContext;
import dev.ax.common.testing.TcpProxy;
import dev.ax.common.testing.TestRuntime;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The retry stage started while the broker does not answer: its broker address is a relay that
 * refuses every connection until the test restores it; the real broker stays up behind it.
 */
@ExtendWith(AxInfraExtension.class)
class RetryStageStartIT {

  @Test
  void aStartWhileTheBrokerIsAwayGoesOnAndTheStageJoinsItsGroupOnceItAnswers(AxTestEnv env)
      throws Exception {
    String[] broker = env.bootstrapServers().split(":");
    try (TestRuntime runtime = TestRuntime.open(env);
        TcpProxy relay = new TcpProxy(broker[0], Integer.parseInt(broker[1]))) {
      relay.cut();
      StageContext context =
          new StageContext(
              CommonConfig.from(runtime.config()),
              KafkaConnection.plaintext("127.0.0.1:" + relay.port()),
              runtime.topics(),
              runtime.dataSource(),
              runtime.dataSource(),
              runtime.clock(),
              "retry-late",
              new SimpleMeterRegistry());
      try (RetryStage stage = new RetryStage(context, RetryConfig.from(runtime.config()))) {
        // It used to read the retry topic's partitions here and throw after max.block.ms.
        assertThatCode(stage::start)
            .as("a broker away at start fails no start")
            .doesNotThrowAnyException();

        relay.restore();
        runtime.awaitGroupsAssigned(1, "retry");
      }
    }
  }
}
