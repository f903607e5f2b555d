package dev.ax.ticker;

import dev.ax.common.config.ConfigKeys;
import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskScheduledEvent;
import dev.ax.common.kafka.ConsumerLoop;
import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.stage.StageContext;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.LeaseStore;
import dev.ax.common.store.StoreException;
import dev.ax.ticker.leader.LeaderElector;
import dev.ax.ticker.reaper.Reaper;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first ticker: it acts only while it holds the ticker lease ({@link LeaderElector}); every
 * batch it marks DISPATCHED is fenced by that lease in the database and every due event carries its
 * epoch. It holds instances due within the horizon in a {@link DueQueue}, fed by a periodic load
 * from the database and by announcements on {@code ax.task.scheduled}, and at each due time marks a
 * batch DISPATCHED with one conditional UPDATE and emits {@code ax.task.due} for the rows it won.
 * Instances overdue at start are loaded first and fire at once, oldest first.
 *
 * <p>Threads: {@code ax-ticker-fire} owns the queue and fires; {@code ax-ticker-load} loads from
 * the database; {@code ax-ticker-scheduled} consumes announcements. Only the firing thread touches
 * the queue's ordered structure; the others hand instances over through its bounded queue.
 *
 * <p>If the process dies between the DISPATCHED commit and the Kafka send, the instance stays
 * DISPATCHED without an event: the reaper (next issue) re-emits such instances.
 */
public final class TickerStage implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(TickerStage.class);

  /** Longest sleep of the firing thread when nothing is due soon; new offers wake it earlier. */
  private static final long MAX_IDLE_WAIT_MS = 100;

  private final StageContext context;
  private final InstanceStore instances;
  private final DueQueue queue;
  private final KafkaProducer<String, byte[]> producer;
  private final ConsumerLoop scheduledLoop;
  private final ScheduledExecutorService loader;
  private final Thread firingThread;
  private final LeaderElector elector;
  private final DueEmitter emitter;
  private final Reaper reaper;
  private final Counter clockHolds;
  private long ledEpoch = -1;
  private final Duration horizon;
  private final Duration loadInterval;
  private final int maxBatch;
  private final int maxHeld;
  private final Counter fired;
  private final Counter lost;
  private final DistributionSummary lateness;
  private volatile boolean running = true;

  public TickerStage(StageContext context) {
    this.context = context;
    this.instances = new InstanceStore(context.dataSource());
    this.horizon = context.config().get(ConfigKeys.TICKER_HORIZON);
    this.loadInterval = context.config().get(ConfigKeys.TICKER_LOAD_INTERVAL);
    this.maxBatch = context.config().get(ConfigKeys.TICKER_MAX_BATCH);
    this.maxHeld = context.config().get(ConfigKeys.TICKER_MAX_HELD);
    this.queue = new DueQueue(maxHeld);
    this.producer = KafkaClients.producer(context.bootstrapServers(), context.nodeId() + "-ticker");
    this.fired = context.meters().counter("ax.ticker.fired");
    this.lost = context.meters().counter("ax.ticker.lost.races");
    this.lateness =
        DistributionSummary.builder("ax.ticker.emit.lateness.ms")
            .publishPercentiles(0.5, 0.99)
            .register(context.meters());
    this.scheduledLoop =
        new ConsumerLoop(
            "ax-ticker-scheduled",
            KafkaClients.consumer(
                context.bootstrapServers(),
                context.topics().group("ticker"),
                context.nodeId() + "-ticker",
                1000),
            List.of(context.topics().scheduled()),
            this::onScheduled,
            Duration.ofSeconds(1));
    this.loader =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "ax-ticker-load");
              t.setDaemon(true);
              return t;
            });
    this.firingThread = new Thread(this::fireLoop, "ax-ticker-fire");
    this.emitter = new DueEmitter(producer, context.topics().due());
    this.clockHolds = context.meters().counter("ax.ticker.clock.unstable.holds");
    context.meters().gauge("ax.ticker.leader", this, t -> t.elector.fence().isPresent() ? 1 : 0);
    this.elector =
        new LeaderElector(
            new LeaseStore(context.dataSource()),
            LeaseFence.TICKER,
            context.nodeId(),
            context.config().get(ConfigKeys.TICKER_LEASE),
            context.config().get(ConfigKeys.TICKER_HEARTBEAT),
            System::nanoTime);
    this.reaper =
        new Reaper(
            instances,
            context.clock(),
            elector::fence,
            emitter,
            context.config().get(ConfigKeys.REAPER_UNCLAIMED_AFTER),
            maxBatch,
            context.meters());
  }

  public TickerStage start() {
    elector.start();
    long reaperIntervalMs = context.config().get(ConfigKeys.REAPER_INTERVAL).toMillis();
    loader.scheduleWithFixedDelay(
        reaper::pass, reaperIntervalMs, reaperIntervalMs, TimeUnit.MILLISECONDS);
    firingThread.start();
    loader.scheduleWithFixedDelay(this::load, 0, loadInterval.toMillis(), TimeUnit.MILLISECONDS);
    scheduledLoop.start();
    log.info(
        "Ticker started: horizon {} ms, load every {} ms",
        horizon.toMillis(),
        loadInterval.toMillis());
    return this;
  }

  private void load() {
    if (elector.fence().isEmpty()) {
      return;
    }
    try {
      long untilMs = context.clock().millis() + horizon.toMillis();
      List<DueInstance> due = instances.findScheduledDueBefore(untilMs, maxHeld);
      int dropped = 0;
      for (DueInstance instance : due) {
        if (!queue.offer(instance)) {
          dropped++;
        }
      }
      if (dropped > 0) {
        log.debug("Hand-off queue full: {} instance(s) left for the next load", dropped);
      }
    } catch (StoreException e) {
      log.warn(
          "Ticker could not load due instances, trying again in {} ms: {}",
          loadInterval.toMillis(),
          e.getMessage());
    } catch (RuntimeException e) {
      log.error("Ticker load failed unexpectedly", e);
    }
  }

  private void onScheduled(ConsumerRecords<String, byte[]> records) {
    long untilMs = context.clock().millis() + horizon.toMillis();
    for (ConsumerRecord<String, byte[]> record : records) {
      TaskScheduledEvent event;
      try {
        event = AxJson.read(record.value(), TaskScheduledEvent.class);
      } catch (RuntimeException e) {
        log.warn(
            "Ignoring unreadable announcement at {}-{}@{}: {}",
            record.topic(),
            record.partition(),
            record.offset(),
            e.getMessage());
        continue;
      }
      if (event.dueAtMs() < untilMs) {
        queue.offer(
            new DueInstance(
                event.instanceId(), event.taskId(), event.dueAtMs(), event.traceId(), event.seq()));
      }
    }
  }

  private void fireLoop() {
    while (running) {
      try {
        Optional<LeaseFence> fence = elector.fence();
        if (fence.isEmpty() || fence.get().epoch() != ledEpoch) {
          // Not leader, or leader at a new epoch: what we held may be stale; the database has it
          // all.
          queue.clear();
          ledEpoch = fence.map(LeaseFence::epoch).orElse(-1L);
          if (fence.isEmpty()) {
            queue.awaitHandOff(MAX_IDLE_WAIT_MS);
            queue.clear();
            continue;
          }
          loader.execute(this::load);
        }
        queue.drainHandOff();
        if (!context.clock().isStable()) {
          // The clock cannot be trusted to say what is due: hold everything until it can.
          clockHolds.increment();
          queue.awaitHandOff(MAX_IDLE_WAIT_MS);
          continue;
        }
        long nowMs = context.clock().millis();
        List<DueInstance> due = queue.takeDue(nowMs, maxBatch);
        if (!due.isEmpty()) {
          fire(due, nowMs, fence.get());
          continue;
        }
        long waitMs = Math.min(queue.nextDueAtMs() - nowMs, MAX_IDLE_WAIT_MS);
        queue.awaitHandOff(Math.max(waitMs, 1));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        log.error("Ticker firing loop caught an unexpected error; continuing", e);
      }
    }
  }

  private void fire(List<DueInstance> due, long nowMs, LeaseFence fence)
      throws InterruptedException {
    List<DueInstance> won;
    try {
      won =
          instances.markDispatched(
              due.stream().map(DueInstance::instanceId).toList(), fence, nowMs);
    } catch (StoreException e) {
      log.warn(
          "Ticker could not mark {} instance(s) DISPATCHED, retrying: {}",
          due.size(),
          e.getMessage());
      queue.putBack(due);
      queue.awaitHandOff(500);
      return;
    }
    queue.release(due);
    lost.increment(due.size() - won.size());
    emitter.emit(won, fence.epoch(), nowMs);
    for (DueInstance instance : won) {
      lateness.record(nowMs - instance.dueAtMs());
    }
    fired.increment(won.size());
  }

  /** Stops everything without releasing the lease, as a crash would. For failover tests. */
  void halt() {
    elector.halt();
    stopThreads();
    producer.close(Duration.ZERO);
    log.info("Ticker {} halted", context.nodeId());
  }

  private void stopThreads() {
    running = false;
    scheduledLoop.close();
    loader.shutdownNow();
    firingThread.interrupt();
    try {
      firingThread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops firing, gives the lease up (a standby takes over at its next heartbeat), stops. */
  @Override
  public void close() {
    elector.close();
    stopThreads();
    producer.close(Duration.ofSeconds(5));
    log.info("Ticker {} stopped", context.nodeId());
  }
}
