package dev.ax.common.stage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stage process whose consumer loop dies ends, non-zero, through its normal stop: a supervisor
 * restarts it rather than keep a process that looks alive and reads nothing.
 */
@ExtendWith(AxInfraExtension.class)
class StageExitIT {

  @Test
  void aStageWhoseConsumerLoopDiesExitsWithStatusOneThroughItsStop(AxTestEnv env, @TempDir Path dir)
      throws Exception {
    Path output = dir.resolve("stage.log");
    ProcessBuilder builder =
        new ProcessBuilder(
                List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp",
                    System.getProperty("java.class.path"),
                    DyingStageMain.class.getName()))
            .redirectErrorStream(true)
            .redirectOutput(output.toFile());
    Map<String, String> environment = builder.environment();
    environment.put("AX_KAFKA_BOOTSTRAP", env.bootstrapServers());
    environment.put("AX_TOPIC_PREFIX", env.topicPrefix());
    environment.put("AX_TOPIC_PARTITIONS", "1");
    environment.put("AX_TOPIC_REPLICATION", "1");
    environment.put("AX_METRICS_BIND", "127.0.0.1:0");
    Process process = builder.start();
    try {
      boolean ended = process.waitFor(90, TimeUnit.SECONDS);
      String log = Files.readString(output, StandardCharsets.UTF_8);
      assertThat(ended).as("the stage process ends by itself; its log:%n%s", log).isTrue();
      assertThat(process.exitValue()).as("exit status; log:%n%s", log).isEqualTo(1);
      assertThat(log)
          .contains("ax-dying stopped by an unexpected error")
          .contains(
              "consumer loop ax-dying died (java.lang.IllegalStateException: a bug in the stage)")
          .as("it stops through the shutdown hook")
          .contains("ax-dying stopping");
    } finally {
      process.destroyForcibly();
    }
  }
}
