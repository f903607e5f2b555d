package dev.ax.compose;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.ingest.IngestMain;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A stage process that cannot start for its configuration exits 2 with the key and value. */
@ExtendWith(AxInfraExtension.class)
class StageExitIT {

  @Test
  void aMetricsPortInUseExitsTwoWithTheKeyAndValueAndNoStackTrace(AxTestEnv env) throws Exception {
    try (ServerSocket busy = new ServerSocket()) {
      busy.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      String bind = "127.0.0.1:" + busy.getLocalPort();
      String node = "exit-" + busy.getLocalPort();

      Process stage =
          StageProcess.start(env, IngestMain.class, node, Map.of("AX_METRICS_BIND", bind));

      assertThat(stage.waitFor(60, TimeUnit.SECONDS)).as("the stage ends by itself").isTrue();
      assertThat(stage.exitValue()).isEqualTo(2);
      String output = Files.readString(Path.of("target", "stage-processes", node + ".log"));
      assertThat(output).contains("AX_METRICS_BIND=" + bind).doesNotContain("\tat ");
    }
  }
}
