package dev.ax.ticker.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskScheduledEvent;
import dev.ax.common.kafka.EventDecoder;
import dev.ax.common.model.ConcurrencyPolicy;
import dev.ax.common.model.MisfirePolicy;
import dev.ax.common.model.Trigger;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.store.LeaseFence;
import dev.ax.common.testing.TestTasks;
import dev.ax.common.time.SettableClock;
import dev.ax.ticker.fire.FirePlanner;
import dev.ax.ticker.fire.InMemoryTickerPort;
import dev.ax.ticker.fire.TickLimits;
import dev.ax.ticker.fire.TickLoop;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Announcements into a real tick loop over an in-memory port, with a settable clock and lease. */
class AnnouncementIntakeTest {

  private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
  private static final long T = T0.toEpochMilli();
  private static final Optional<LeaseFence> LEADER = Optional.of(new LeaseFence("ticker", "n1", 3));
  private static final TopicPartition SCHEDULED = new TopicPartition("ax.task.scheduled", 0);

  private final SettableClock clock = new SettableClock(T0);
  private final AtomicReference<Optional<LeaseFence>> fence =
      new AtomicReference<>(Optional.empty());
  private final InMemoryTickerPort port = new InMemoryTickerPort();
  private final List<List<String>> prefetched = new ArrayList<>();
  private final TickLoop loop =
      new TickLoop(
          clock,
          fence::get,
          port,
          new FirePlanner(new FireTimes(), Duration.ofSeconds(5)),
          new TickLimits(10, 8, 10_000, 1000, 60_000),
          new SimpleMeterRegistry());
  private final AnnouncementIntake intake =
      new AnnouncementIntake(
          EventDecoder.of(
              TaskScheduledEvent.class, "announcement", "ticker", new SimpleMeterRegistry()),
          clock,
          Duration.ofSeconds(10),
          loop,
          fence::get,
          taskIds -> prefetched.add(List.copyOf(taskIds)));
  private long offset;

  /** Stores a one-shot task's instance due at {@code dueMs} and returns its announcement. */
  private ConsumerRecords<String, byte[]> announced(String taskId, long dueMs) {
    port.tasks.put(
        taskId,
        TestTasks.stored(
            TestTasks.noop(
                taskId,
                Trigger.Once.after(Duration.ZERO),
                MisfirePolicy.FIRE_ONCE_NOW,
                100,
                true,
                ConcurrencyPolicy.SKIP)));
    long seq = port.add(taskId, dueMs, dueMs);
    TaskScheduledEvent event =
        new TaskScheduledEvent(1, taskId, taskId + "@" + dueMs, dueMs, "trace", seq, "g");
    ConsumerRecord<String, byte[]> record =
        new ConsumerRecord<>(SCHEDULED.topic(), 0, offset++, taskId, AxJson.write(event));
    return new ConsumerRecords<>(
        Map.of(SCHEDULED, List.of(record)), Map.of(SCHEDULED, new OffsetAndMetadata(offset)));
  }

  private List<String> firedAt(long ms) {
    clock.set(Instant.ofEpochMilli(ms));
    while (loop.step() == 0) {
      // fire everything due now
    }
    return port.emitted.stream().map(InMemoryTickerPort.Emitted::instanceId).toList();
  }

  @Test
  void aLeaderFiresWhatIsAnnouncedAndReadsItsSpecAhead() {
    fence.set(LEADER);
    loop.step(); // the loop takes up the epoch

    intake.accept(announced("a", T + 1000));

    assertThat(prefetched).containsExactly(List.of("a"));
    assertThat(firedAt(T + 1000)).containsExactly("a@" + (T + 1000));
  }

  @Test
  void aStandbyHoldsNothingAndReadsNothing() {
    intake.accept(announced("a", T + 1000));

    assertThat(loop.handOffSize()).isZero();
    assertThat(prefetched).isEmpty();
  }

  @Test
  void anAnnouncementDuringAMomentaryLapseOfTheFenceIsStillFired() {
    fence.set(LEADER);
    loop.step();
    // The renewal after a slow acquisition is late: for a moment the elector gives no fence,
    // while the loop (busy firing) never sees it and so will not reload its window.
    fence.set(Optional.empty());
    intake.accept(announced("a", T + 1000));
    fence.set(LEADER);

    assertThat(firedAt(T + 1000))
        .as("fired at its due time, not left to the loader's next rescan")
        .containsExactly("a@" + (T + 1000));
  }

  @Test
  void anAnnouncementDueBeyondTheHorizonIsLeftToTheLoader() {
    fence.set(LEADER);
    loop.step();

    intake.accept(announced("far", T + 10_000));

    assertThat(loop.handOffSize()).isZero();
    assertThat(prefetched).isEmpty();
  }
}
