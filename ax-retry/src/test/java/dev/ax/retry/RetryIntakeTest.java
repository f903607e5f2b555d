package dev.ax.retry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.contract.TaskRetryEvent;
import dev.ax.common.kafka.EventDecoder;
import dev.ax.common.time.SettableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The scan: this replica's share of the pending retries within the horizon, to the wheel. */
class RetryIntakeTest {

  private static final long T0 = 1_000_000;

  private final SettableClock clock = new SettableClock(Instant.ofEpochMilli(T0));
  private final InMemoryRetryPort port = new InMemoryRetryPort();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final RetryLoop loop =
      new RetryLoop(
          clock, port, new RetryPlanner(new RetryQuota(1_000, 1_000, T0), 500), 10_000, meters);
  private final RetryIntake intake =
      new RetryIntake(
          new RetryIntake.Wiring(
              clock,
              port,
              loop,
              EventDecoder.of(TaskRetryEvent.class, "retry event", "retry", meters),
              Runnable::run,
              "ax.task.retry",
              Duration.ofMinutes(1),
              1_000));

  @Test
  void theScanOffersOnlyRowsOfOwnedPartitionsWithinTheHorizon() {
    List<String> tasks = IntStream.range(0, 40).mapToObj(i -> "task-" + i).toList();
    for (int i = 0; i < tasks.size(); i++) {
      port.retrying(i, tasks.get(i), T0 + 1_000);
    }
    port.retrying(100, "task-far", T0 + 120_000);
    intake.partitionsKnown(4);
    intake.onAssigned(List.of(new TopicPartition("ax.task.retry", 1)));

    long owned = tasks.stream().filter(t -> RetryIntake.partitionOf(t, 4) == 1).count();
    assertThat(owned).as("the fixture spreads over partitions").isBetween(1L, 39L);
    loop.step(); // takes the hand-over into the wheel; nothing is due yet
    assertThat(loop.held()).isEqualTo((int) owned);

    clock.set(Instant.ofEpochMilli(T0 + 1_000));
    loop.step();
    assertThat(port.emitted)
        .extracting(seq -> tasks.get(seq.intValue()))
        .allSatisfy(t -> assertThat(RetryIntake.partitionOf(t, 4)).isEqualTo(1));
  }

  @Test
  void noScanBeforeThePartitionCountIsKnownOrAfterEveryPartitionIsRevoked() {
    port.retrying(1, "task", T0);
    TopicPartition only = new TopicPartition("ax.task.retry", 0);

    intake.onAssigned(List.of(only));
    loop.step();
    assertThat(port.emitted).as("count unknown").isEmpty();

    intake.partitionsKnown(1);
    intake.onRevoked(List.of(only));
    intake.scanQuietly();
    loop.step();
    assertThat(port.emitted).as("nothing owned").isEmpty();

    intake.onAssigned(List.of(only));
    clock.set(Instant.ofEpochMilli(T0 + 20));
    loop.step();
    assertThat(port.emitted).containsExactly(1L);
  }

  @Test
  void partitionOfMatchesKafkasDefaultPartitioner() {
    assertThat(RetryIntake.partitionOf("a", 12))
        .isEqualTo(
            org.apache.kafka.common.utils.Utils.toPositive(
                    org.apache.kafka.common.utils.Utils.murmur2("a".getBytes()))
                % 12);
  }
}
