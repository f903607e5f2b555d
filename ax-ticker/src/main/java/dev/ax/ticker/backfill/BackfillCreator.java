package dev.ax.ticker.backfill;

import dev.ax.common.kafka.AnnouncementRecords;
import dev.ax.common.kafka.Topics;
import dev.ax.common.model.TriggerGroups;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.store.BackfillStore;
import dev.ax.common.store.BackfillStore.Backfill;
import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.NewInstance;
import dev.ax.common.store.TaskStore;
import dev.ax.common.time.Clock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ticker leader's backfill chore, on {@code ax-ticker-chores} every {@link #PASS_EVERY}: reads
 * the RUNNING backfills (at most {@link BackfillStore#MAX_RUNNING}, oldest request first), takes
 * what the pace allows ({@link BackfillPace}, {@code AX_BACKFILL_RATE}), shares it between them and
 * lets each create its next firings ({@link BackfillFirings#step}, one transaction each, bounded by
 * {@code AX_BACKFILL_MAX_IN_FLIGHT} and the backfill's overlap policy). The firings created
 * SCHEDULED are announced on {@code ax.task.scheduled} like any new instance ({@link
 * AnnouncementRecords}), so the wheel fires them at once; the window load would find them too.
 *
 * <p>Why paced: the firings are due now, all of them; created at once, 10,000 of them would stand
 * in front of every other task's due work at the dispatchers. At the pace, the due work of other
 * tasks passes between them (docs/BENCHMARKS.md, "Backfill").
 *
 * <p>A step that fails (the database away) is logged; the next pass tries again from the stored
 * cursor. A standby does nothing. Threading: the chores thread only.
 */
public final class BackfillCreator {

  private static final Logger log = LoggerFactory.getLogger(BackfillCreator.class);

  /** How often the chore looks for work: 5 passes a second share the rate. */
  public static final Duration PASS_EVERY = Duration.ofMillis(200);

  private final BackfillStore backfills;
  private final BackfillFirings firings;
  private final TaskStore tasks;
  private final BackfillPace pace;
  private final int maxInFlight;
  private final Supplier<Optional<LeaseFence>> fence;
  private final LongSupplier nanoTime;
  private final Clock clock;
  private final KafkaProducer<String, byte[]> producer;
  private final String scheduledTopic;
  private final String actor;
  private final Counter created;
  private final Counter skipped;
  private final Counter notRun;
  private final AtomicInteger running = new AtomicInteger();

  /**
   * @param firingsPerSecond {@code AX_BACKFILL_RATE}
   * @param maxInFlight {@code AX_BACKFILL_MAX_IN_FLIGHT}: most live firings of one backfill
   * @param producer the ticker's own; not closed here
   * @param actor who creates the firings (the node id), in their audit rows
   */
  public BackfillCreator(
      DataSource dataSource,
      int firingsPerSecond,
      int maxInFlight,
      Supplier<Optional<LeaseFence>> fence,
      LongSupplier nanoTime,
      Clock clock,
      KafkaProducer<String, byte[]> producer,
      Topics topics,
      String actor,
      MeterRegistry meters) {
    this.backfills = new BackfillStore(dataSource);
    this.firings = new BackfillFirings(dataSource, new FireTimes(), topics);
    this.tasks = new TaskStore(dataSource);
    this.pace = new BackfillPace(firingsPerSecond);
    this.maxInFlight = maxInFlight;
    this.fence = fence;
    this.nanoTime = nanoTime;
    this.clock = clock;
    this.producer = producer;
    this.scheduledTopic = topics.scheduled();
    this.actor = actor;
    this.created = meters.counter("ax.backfill.firings", "outcome", "created");
    this.skipped = meters.counter("ax.backfill.firings", "outcome", "skipped");
    this.notRun = meters.counter("ax.firings.not.run", "reason", "overlap");
    meters.gauge("ax.backfill.running", running);
  }

  /** One pass: the next firings of every running backfill, as the pace allows. */
  public void pass() {
    int available = pace.available(nanoTime.getAsLong());
    if (fence.get().isEmpty()) {
      running.set(0);
      return;
    }
    List<Backfill> active = backfills.running(BackfillStore.MAX_RUNNING);
    running.set(active.size());
    if (active.isEmpty() || available == 0) {
      return;
    }
    List<Integer> shares = BackfillPace.shares(available, active.size());
    List<Future<RecordMetadata>> sends = new ArrayList<>();
    for (int i = 0; i < active.size(); i++) {
      Backfill backfill = active.get(i);
      try {
        BackfillFirings.Step step =
            firings.step(backfill, shares.get(i), maxInFlight, actor, clock.millis());
        pace.spend(step.created());
        created.increment(step.created());
        skipped.increment(step.skipped());
        notRun.increment(step.skipped());
        announce(backfill, step, sends);
        if (step.ended()) {
          logEnd(backfill.backfillId());
        }
      } catch (RuntimeException e) {
        log.warn(
            "Backfill {} of task {}: a step failed, tried again next pass: {}",
            backfill.backfillId(),
            backfill.taskId(),
            e.toString());
      }
    }
    for (Future<RecordMetadata> send : sends) {
      try {
        send.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (java.util.concurrent.ExecutionException e) {
        // The row is SCHEDULED and due: the next window load finds it.
        log.warn(
            "A backfill firing's announcement failed; the window load takes it: {}", e.toString());
      }
    }
  }

  private void announce(
      Backfill backfill, BackfillFirings.Step step, List<Future<RecordMetadata>> sends) {
    if (step.scheduled().isEmpty()) {
      return;
    }
    String group =
        tasks
            .find(backfill.taskId())
            .map(task -> TriggerGroups.keyOf(task.spec().trigger()))
            .orElse(null);
    if (group == null) {
      return; // gone meanwhile: the window load finds what is left
    }
    for (NewInstance firing : step.scheduled()) {
      Long seq = step.seqByInstanceId().get(firing.instanceId());
      if (seq != null) {
        sends.add(producer.send(AnnouncementRecords.of(scheduledTopic, firing, seq, group)));
      }
    }
  }

  private void logEnd(String backfillId) {
    backfills
        .find(backfillId)
        .ifPresent(
            b ->
                log.info(
                    "Backfill {} of task {} {}: {} firing(s) created ({} skipped), {} slot(s)"
                        + " passed over (their firing existed); {}",
                    b.backfillId(),
                    b.taskId(),
                    b.state(),
                    b.created(),
                    b.skipped(),
                    b.existing(),
                    b.endedReason()));
  }
}
