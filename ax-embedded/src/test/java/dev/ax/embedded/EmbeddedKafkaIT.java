package dev.ax.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedKafkaIT {

  @TempDir Path dir;

  @Test
  void aTakenPortFailsFastWithABindExceptionThatStartRetriesOn() throws Exception {
    List<Integer> ports = FreePorts.loopback(2);
    try (ServerSocket taken = new ServerSocket(ports.get(0), 1, InetAddress.getLoopbackAddress())) {
      Throwable failure =
          assertTimeoutPreemptively(
              Duration.ofSeconds(60),
              () ->
                  catchThrowable(
                      () -> EmbeddedKafka.startOnce(dir, taken.getLocalPort(), ports.get(1))));

      assertThat(failure).isNotNull();
      assertThat(EmbeddedKafka.causedByBindFailure(failure)).as(failure.toString()).isTrue();
    }
  }

  @Test
  void startsAndStopsOnFreePorts() {
    EmbeddedKafka kafka = EmbeddedKafka.start(dir);
    try {
      assertThat(kafka.bootstrapServers()).matches("127\\.0\\.0\\.1:\\d+");
      assertThat(dir.resolve("meta.properties")).exists();
    } finally {
      kafka.close();
    }
    kafka.close(); // idempotent
    assertThat(dir.resolve("meta.properties")).exists();
  }
}
