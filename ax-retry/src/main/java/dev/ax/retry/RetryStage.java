package dev.ax.retry;

import dev.ax.common.contract.TaskRetryEvent;
import dev.ax.common.kafka.ConsumerLoop;
import dev.ax.common.kafka.DueRecords;
import dev.ax.common.kafka.EventDecoder;
import dev.ax.common.stage.StageContext;
import dev.ax.common.stage.Switches;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.StoreException;
import dev.ax.common.thread.DaemonThreads;
import dev.ax.common.time.SaturatingMillis;
import dev.ax.common.trace.TraceLog;
import dev.ax.common.wheel.AddResult;
import dev.ax.common.wheel.TimingWheel;
import io.micrometer.core.instrument.Counter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The retry stage: holds each failed attempt until its backoff is over, then moves the instance
 * RETRYING → DISPATCHED with a conditional UPDATE and emits it on {@code ax.task.due.retry}, at
 * most {@code AX_RETRY_RATE} a second and while fewer than {@code AX_RETRY_MAX_IN_FLIGHT} retried
 * attempts are in flight.
 *
 * <p>Its pending retries live in the database (the dispatcher records RETRYING with the time of the
 * next attempt in the failure's own transaction). The stage's wheel is a cache of those due within
 * {@code AX_RETRY_HORIZON}: fed by {@code ax.task.retry} as failures happen and by a database scan
 * every {@code AX_RETRY_RESCAN}, which is also its rebuild after a restart. Replicas share the work
 * by the partitions of {@code ax.task.retry} they hold: a replica's scan keeps the instances whose
 * task id maps to its partitions. A retry that two replicas both fire (during a rebalance) is
 * dispatched once: the UPDATE is conditional on RETRYING.
 *
 * <p>While the {@code retries} switch is off ({@code ax switch retries off}) the stage dispatches
 * nothing: pending retries wait, and new failures go straight to dead letters (the dispatchers read
 * the same switch).
 *
 * <p>Threading: {@code ax-retry-fire} owns the wheel and the quota; the consumer thread and the
 * scan hand instances over through a bounded queue (an instance that does not fit is picked up by
 * the next scan); {@code ax-retry-sched} runs the scan and counts retries in flight.
 */
public final class RetryStage implements AutoCloseable {

  /** How long the consumer thread waits for the retry topic's partition count. */
  private static final Duration METADATA_WAIT = Duration.ofSeconds(1);

  private static final Logger log = LoggerFactory.getLogger(RetryStage.class);
  private static final int HANDOFF_CAPACITY = 100_000;
  private static final int MAX_PENDING = 1_000_000;
  private static final int MAX_DISPATCH_BATCH = 500;
  private static final long IDLE_WAIT_MS = 10;

  private record Pending(long seq, long atMs) {}

  private final StageContext context;
  private final RetryStore retries;
  private final KafkaProducer<String, byte[]> producer;
  private final ConsumerLoop loop;
  private final Duration horizon;
  private final Duration rescan;
  private final ArrayBlockingQueue<Pending> handoff = new ArrayBlockingQueue<>(HANDOFF_CAPACITY);
  private final Set<Integer> ownedPartitions = ConcurrentHashMap.newKeySet();
  private final AtomicLong inFlight = new AtomicLong();

  /**
   * Whether retries wait in the wheel; set by the fire loop. The in-flight count reads every
   * DISPATCHED and RUNNING row, so it runs only while there are retries it could hold back.
   */
  private volatile boolean retriesWaiting;

  private final ScheduledExecutorService scheduler = DaemonThreads.scheduler("ax-retry-sched");
  private final Thread fireThread;
  private final Switches switches;
  private final Counter dispatched;
  private final EventDecoder<TaskRetryEvent> retryEvents;
  private final AtomicLong heldBack = new AtomicLong();
  private final int ratePerSecond;
  private final int maxInFlight;
  private volatile boolean running = true;

  /**
   * The retry topic's partition count (which decides this replica's share of the scan), -1 until
   * the consumer thread has read it once partitions are assigned: read at start, it failed the
   * start of a stage whose broker did not answer.
   */
  private volatile int retryPartitions = -1;

  public RetryStage(StageContext context, RetryConfig config) {
    this.context = context;
    this.retryEvents =
        EventDecoder.of(TaskRetryEvent.class, "retry event", "retry", context.meters());
    this.retries = new RetryStore(context.dataSource());
    this.horizon = config.horizon();
    this.rescan = config.rescan();
    this.ratePerSecond = config.ratePerSecond();
    this.maxInFlight = config.maxInFlight();
    this.producer = context.producer("retry");
    this.dispatched = context.meters().counter("ax.retry.dispatched");
    context.meters().gauge("ax.retry.held.back.by.quota", heldBack);
    context.meters().gauge("ax.retry.in.flight", inFlight);
    this.fireThread = new Thread(this::fireLoop, "ax-retry-fire");
    this.switches = context.switches("retry", Set.of(Switches.RETRIES));
    this.loop =
        context.groupLoop(
            "retry",
            500,
            List.of(context.topics().retry()),
            new ConsumerLoop.BatchHandler() {
              @Override
              public void handle(ConsumerRecords<String, byte[]> records) {
                take(records);
              }

              @Override
              public void beforePoll(KafkaConsumer<String, byte[]> consumer) {
                if (retryPartitions < 1 && !ownedPartitions.isEmpty()) {
                  readRetryPartitions(consumer);
                }
              }

              @Override
              public void onAssigned(Collection<TopicPartition> partitions) {
                partitions.forEach(p -> ownedPartitions.add(p.partition()));
                try {
                  scheduler.execute(RetryStage.this::scanQuietly); // rebuild what they hold now
                } catch (RejectedExecutionException e) {
                  // Shutting down; inside poll() an exception would end the consumer thread.
                }
              }

              @Override
              public void onRevoked(Collection<TopicPartition> partitions) {
                partitions.forEach(p -> ownedPartitions.remove(p.partition()));
              }
            },
            context.parking(producer, "retry"));
  }

  public RetryStage start() {
    switches.start();
    fireThread.start();
    scheduler.scheduleWithFixedDelay(
        this::scanQuietly, rescan.toMillis(), rescan.toMillis(), TimeUnit.MILLISECONDS);
    scheduler.scheduleWithFixedDelay(this::countInFlightQuietly, 0, 500, TimeUnit.MILLISECONDS);
    loop.start();
    log.info(
        "Retry stage {} started on {}: at most {}/s and {} in flight",
        context.nodeId(),
        context.topics().retry(),
        ratePerSecond,
        maxInFlight);
    return this;
  }

  /** Retry events as failures happen: those due within the horizon go to the wheel now. */
  private void take(ConsumerRecords<String, byte[]> records) {
    long untilMs = SaturatingMillis.atMs(context.clock().millis(), horizon);
    retryEvents.forEachEvent(
        records,
        (record, event) -> {
          if (event.retryAtMs() < untilMs) {
            handoff.offer(new Pending(event.seq(), event.retryAtMs())); // full: the scan has it
          }
        });
  }

  /** The database scan: pending retries due within the horizon, of this replica's partitions. */
  private void scanQuietly() {
    try {
      int partitions = retryPartitions;
      if (partitions < 1 || ownedPartitions.isEmpty()) {
        return;
      }
      long untilMs = SaturatingMillis.atMs(context.clock().millis(), horizon);
      int offered = 0;
      for (RetryStore.PendingRetry retry : retries.findPendingRetries(untilMs, MAX_PENDING)) {
        if (ownedPartitions.contains(partitionOf(retry.taskId(), partitions))
            && handoff.offer(new Pending(retry.seq(), retry.nextAttemptAtMs()))) {
          offered++;
        }
      }
      log.debug("Retry scan offered {} pending retr(ies) to the wheel", offered);
    } catch (RuntimeException e) {
      log.warn("Retry scan failed, the next one retries: {}", e.toString());
    }
  }

  /** Consumer thread, once partitions are assigned (their metadata is then at hand). */
  private void readRetryPartitions(KafkaConsumer<String, byte[]> consumer) {
    try {
      retryPartitions = consumer.partitionsFor(context.topics().retry(), METADATA_WAIT).size();
      scheduler.execute(this::scanQuietly); // the scan after the assignment found no count
    } catch (WakeupException e) {
      throw e;
    } catch (KafkaException e) {
      log.debug("Retry topic's partitions not known yet: {}", e.toString());
    } catch (RejectedExecutionException e) {
      // Shutting down.
    }
  }

  /** The partition Kafka's default partitioner gives a record keyed by {@code taskId}. */
  static int partitionOf(String taskId, int partitions) {
    return Utils.toPositive(Utils.murmur2(taskId.getBytes(StandardCharsets.UTF_8))) % partitions;
  }

  private void countInFlightQuietly() {
    if (!retriesWaiting) {
      return; // nothing to bound: the count would be read for nobody (and stays as last read)
    }
    try {
      inFlight.set(retries.countRetriesInFlight());
    } catch (RuntimeException e) {
      log.warn("Could not count retries in flight: {}", e.toString());
    }
  }

  private void fireLoop() {
    TimingWheel wheel = new TimingWheel(MAX_PENDING, context.clock().millis());
    RetryQuota quota = new RetryQuota(ratePerSecond, maxInFlight, context.clock().millis());
    Set<Long> ready = new LinkedHashSet<>();
    while (running) {
      try {
        Pending next = handoff.poll(IDLE_WAIT_MS, TimeUnit.MILLISECONDS);
        while (next != null) {
          AddResult added = wheel.add(next.seq(), 0, next.atMs());
          if (added == AddResult.ALREADY_DUE) {
            ready.add(next.seq());
          }
          next = handoff.poll();
        }
        long nowMs = context.clock().millis();
        wheel.advanceTo(
            nowMs,
            (group, dueAtMs, seqs, count) -> {
              for (int i = 0; i < count; i++) {
                ready.add(seqs[i]);
              }
            });
        boolean waiting = !ready.isEmpty() || wheel.size() > 0;
        if (waiting && !retriesWaiting) {
          retriesWaiting = true;
          countInFlightQuietly(); // fresh before the first dispatch after an idle spell
        }
        retriesWaiting = waiting;
        if (!ready.isEmpty() && switches.retriesEnabled()) {
          dispatchReady(ready, quota, nowMs);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        log.error("Retry firing loop caught an unexpected error; continuing", e);
      }
    }
  }

  /** Dispatches as many ready retries as the quota allows, oldest first; the rest wait. */
  private void dispatchReady(Set<Long> ready, RetryQuota quota, long nowMs)
      throws InterruptedException {
    int permits = quota.take(Math.min(ready.size(), MAX_DISPATCH_BATCH), inFlight.get(), nowMs);
    heldBack.set(ready.size() - permits);
    if (permits == 0) {
      return;
    }
    List<Long> batch = new ArrayList<>(permits);
    Iterator<Long> it = ready.iterator();
    while (batch.size() < permits && it.hasNext()) {
      batch.add(it.next());
      it.remove();
    }
    List<DueInstance> moved;
    try {
      moved = retries.dispatchRetries(batch, context.nodeId(), nowMs);
    } catch (StoreException e) {
      log.warn(
          "Could not dispatch {} retr(ies), retrying in 1 s: {}", batch.size(), e.getMessage());
      ready.addAll(batch);
      Thread.sleep(1000); // back-off while the database is away, not synchronisation
      return;
    }
    inFlight.addAndGet(moved.size());
    dispatched.increment(moved.size());
    for (DueInstance instance : moved) {
      producer.send(
          DueRecords.of(context.topics().dueRetry(), instance, 0, nowMs, null),
          (metadata, error) -> {
            if (error != null) {
              // DISPATCHED already: the ticker's reaper emits it again when nobody claims it.
              try (TraceLog fields =
                  TraceLog.ofInstance(
                      instance.traceId(), instance.taskId(), instance.instanceId())) {
                log.warn("Retry of {} not emitted: {}", instance.instanceId(), error.toString());
              }
            }
          });
    }
    if (!moved.isEmpty()) {
      log.debug(
          "Dispatched {} retr(ies): {}",
          moved.size(),
          TraceLog.firstIds(moved, DueInstance::instanceId, DueInstance::traceId, 5));
    }
  }

  /** Stops consuming and firing; pending retries stay RETRYING in the database for the next run. */
  @Override
  public void close() {
    running = false;
    loop.close();
    scheduler.shutdownNow();
    fireThread.interrupt();
    DaemonThreads.awaitEnd(fireThread, Duration.ofSeconds(10));
    switches.close();
    producer.close(Duration.ofSeconds(5));
    log.info("Retry stage {} stopped", context.nodeId());
  }
}
