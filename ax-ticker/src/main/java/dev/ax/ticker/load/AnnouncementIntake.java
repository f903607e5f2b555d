package dev.ax.ticker.load;

import dev.ax.common.contract.TaskScheduledEvent;
import dev.ax.common.kafka.EventDecoder;
import dev.ax.common.model.TriggerGroups;
import dev.ax.common.store.LeaseFence;
import dev.ax.common.time.Clock;
import dev.ax.common.time.SaturatingMillis;
import dev.ax.ticker.fire.TickLoop;
import dev.ax.ticker.fire.WheelEntry;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecords;

/**
 * Hands announced instances ({@code ax.task.scheduled}) due within the horizon to the {@link
 * TickLoop}, and has their tasks' specs read ahead of their firing.
 *
 * <p><b>Who takes them.</b> A node that stands by by both measures (the elector holds no fence and
 * the loop leads at no epoch) drops them: when it becomes leader, the loop's first full load reads
 * them from the database, where each was committed before it was announced. Every other node offers
 * them, including a leader whose fence lapsed for a moment while its loop still leads (a renewal
 * slower than the lease's margin, as after a database restart). Dropping those would lose them
 * until the loader's next rescan, since the loop, busy firing, may never see the lapse and so never
 * reloads. Offering them is safe: a loop that does see a lapse clears what was handed over, then
 * reloads its whole window from the database, which has them.
 *
 * <p>Threading: {@link #accept} runs on the announcement consumer's thread; the loop's {@link
 * TickLoop#offer} and {@link TickLoop#ledEpoch} are safe from it.
 *
 * @param announcements decodes each record, and counts and logs the unreadable ones
 * @param clock the stage clock the horizon counts from
 * @param horizon instances due later than this from now are left to the window loader
 * @param loop where the entries go
 * @param leadership the elector's fence, empty while this node must not act as leader
 * @param prefetch reads tasks' specs into the firing's cache, best effort
 */
public record AnnouncementIntake(
    EventDecoder<TaskScheduledEvent> announcements,
    Clock clock,
    Duration horizon,
    TickLoop loop,
    Supplier<Optional<LeaseFence>> leadership,
    Consumer<Collection<String>> prefetch) {

  /** Offers what {@code records} announce, as the class comment says; the consumer's thread. */
  public void accept(ConsumerRecords<String, byte[]> records) {
    if (leadership.get().isEmpty() && loop.ledEpoch() < 0) {
      return; // a standby holds nothing: as leader it loads these from the database
    }
    long untilMs = SaturatingMillis.atMs(clock.millis(), horizon);
    Set<String> taskIds = new HashSet<>();
    announcements.forEachEvent(
        records,
        (record, event) -> {
          if (event.triggerGroup() != null
              && event.triggerGroup().length() > TriggerGroups.MAX_KEY_LENGTH) {
            // No ingest writes such a key (TriggerGroups hashes long ones): not AX's, and the
            // wheel keeps every key it sees, so it must not take this one.
            announcements.skipped(
                record,
                "trigger group of "
                    + event.triggerGroup().length()
                    + " characters (at most "
                    + TriggerGroups.MAX_KEY_LENGTH
                    + ")");
          } else if (event.dueAtMs() < untilMs) {
            loop.offer(new WheelEntry(event.seq(), event.dueAtMs(), event.triggerGroup()));
            taskIds.add(event.taskId());
          }
        });
    if (!taskIds.isEmpty()) {
      prefetch.accept(taskIds);
    }
  }
}
