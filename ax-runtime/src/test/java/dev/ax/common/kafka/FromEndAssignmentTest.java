package dev.ax.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

/** The from-end assignment's steps over Kafka's {@link MockConsumer}: no broker, no timing. */
class FromEndAssignmentTest {

  private static final String TOPIC = "ax.task.scheduled";
  private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
  private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);

  private final MockConsumer<String, byte[]> consumer = new MockConsumer<>("latest");
  private final AtomicInteger positionedLate = new AtomicInteger();
  private final FromEndAssignment assignment =
      new FromEndAssignment("reader", List.of(TOPIC), positionedLate::incrementAndGet);

  private void topicHasTwoPartitionsEndingAt(long p0End, long p1End) {
    consumer.updatePartitions(
        TOPIC,
        List.of(
            new PartitionInfo(TOPIC, 0, null, null, null),
            new PartitionInfo(TOPIC, 1, null, null, null)));
    consumer.updateEndOffsets(Map.of(P0, p0End, P1, p1End));
  }

  @Test
  void atStartEveryPartitionIsTakenAtItsEndAndNothingIsLate() {
    topicHasTwoPartitionsEndingAt(7, 3);

    assignment.beforeStart(consumer);

    assertThat(consumer.assignment()).containsExactlyInAnyOrder(P0, P1);
    assertThat(consumer.position(P0)).isEqualTo(7);
    assertThat(consumer.position(P1)).isEqualTo(3);
    assertThat(assignment.beforePoll(consumer)).isTrue();
    assertThat(positionedLate).hasValue(0);
  }

  @Test
  void withoutPartitionsAtStartTheLoopPollsNothingUntilItCanTakeThemThenSaysSoOnce() {
    assignment.beforeStart(consumer);

    assertThat(consumer.assignment()).isEmpty();
    assertThat(assignment.beforePoll(consumer)).as("nothing to poll yet").isFalse();
    assertThat(positionedLate).hasValue(0);

    topicHasTwoPartitionsEndingAt(5, 9);
    assertThat(assignment.beforePoll(consumer)).isTrue();
    assertThat(consumer.position(P0)).isEqualTo(5);
    assertThat(consumer.position(P1)).isEqualTo(9);
    assertThat(positionedLate).hasValue(1);

    assertThat(assignment.beforePoll(consumer)).isTrue();
    assertThat(positionedLate).as("once").hasValue(1);
  }

  @Test
  void aPartitionWithoutItsEndOffsetAtStartLetsTheOthersBeReadAndTheLoopSaysSoOnceItHasIt() {
    AtomicInteger p1Timeouts = new AtomicInteger(2);
    MockConsumer<String, byte[]> flaky =
        new MockConsumer<>("latest") {
          @Override
          public synchronized long position(TopicPartition partition, Duration timeout) {
            if (partition.equals(P1) && p1Timeouts.getAndDecrement() > 0) {
              throw new TimeoutException("no leader for " + partition);
            }
            return super.position(partition, timeout);
          }
        };
    flaky.updatePartitions(
        TOPIC,
        List.of(
            new PartitionInfo(TOPIC, 0, null, null, null),
            new PartitionInfo(TOPIC, 1, null, null, null)));
    flaky.updateEndOffsets(Map.of(P0, 4L, P1, 6L));

    assignment.beforeStart(flaky);
    assertThat(flaky.assignment()).containsExactlyInAnyOrder(P0, P1);
    assertThat(assignment.beforePoll(flaky)).as("P0 can be read meanwhile").isTrue();
    assertThat(positionedLate).as("P1 still has no position").hasValue(0);

    assertThat(assignment.beforePoll(flaky)).isTrue();
    assertThat(flaky.position(P1)).isEqualTo(6);
    assertThat(positionedLate).as("every position fixed, after the start").hasValue(1);
    assertThat(assignment.beforePoll(flaky)).isTrue();
    assertThat(positionedLate).as("once").hasValue(1);
  }
}
