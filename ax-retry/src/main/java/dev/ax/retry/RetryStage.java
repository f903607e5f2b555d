package dev.ax.retry;

import dev.ax.common.contract.TaskRetryEvent;
import dev.ax.common.kafka.ConsumerLoop;
import dev.ax.common.kafka.EventDecoder;
import dev.ax.common.stage.OpenedResources;
import dev.ax.common.stage.StageContext;
import dev.ax.common.stage.Switches;
import dev.ax.common.thread.DaemonThreads;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
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
 * <p>Shape: {@link RetryIntake} feeds the {@link RetryLoop} (retry events and the scan); the loop
 * holds the wheel and dispatches what the {@link RetryPlanner} (with its {@link RetryQuota}) lets
 * go, through the {@link RetryPort} ({@link StoreRetryPort} here; an in-memory one in tests).
 *
 * <p>Threading: {@code ax-retry-fire} ({@link RetryFiringThread}) owns the loop, its wheel and the
 * quota; the consumer thread and the scan hand retries over through a bounded queue (a retry that
 * does not fit is picked up by the next scan); {@code ax-retry-sched} runs the scan and counts
 * retries in flight.
 */
public final class RetryStage implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RetryStage.class);
  private static final int MAX_PENDING = 1_000_000;
  private static final int MAX_DISPATCH_BATCH = 500;

  /** How often the in-flight count is read again while retries wait. */
  private static final long IN_FLIGHT_COUNT_MS = 500;

  private final StageContext context;
  private final RetryConfig config;
  private final ConsumerLoop consumer;
  private final RetryLoop loop;
  private final RetryIntake intake;
  private final RetryFiringThread firing;
  private final ScheduledExecutorService scheduler = DaemonThreads.scheduler("ax-retry-sched");
  private final Switches switches;

  /**
   * Everything the stage opens, closed in the reverse order: the consumer first, the producer last.
   */
  private final OpenedResources opened = new OpenedResources();

  public RetryStage(StageContext context, RetryConfig config) {
    this.context = context;
    this.config = config;
    KafkaProducer<String, byte[]> producer = context.producer("retry");
    opened.add(() -> producer.close(Duration.ofSeconds(5)));
    this.switches = opened.add(context.switches("retry", Set.of(Switches.RETRIES)));
    RetryPort port =
        new StoreRetryPort(
            new RetryStore(context.dataSource()),
            producer,
            switches,
            context.topics().dueRetry(),
            context.nodeId());
    long nowMs = context.clock().millis();
    this.loop =
        new RetryLoop(
            context.clock(),
            port,
            new RetryPlanner(
                new RetryQuota(config.ratePerSecond(), config.maxInFlight(), nowMs),
                MAX_DISPATCH_BATCH),
            MAX_PENDING,
            context.meters());
    this.firing = opened.add(new RetryFiringThread(loop));
    opened.add(scheduler::shutdownNow);
    this.intake =
        new RetryIntake(
            new RetryIntake.Wiring(
                context.clock(),
                port,
                loop,
                EventDecoder.of(TaskRetryEvent.class, "retry event", "retry", context.meters()),
                scheduler,
                context.topics().retry(),
                config.horizon(),
                MAX_PENDING));
    this.consumer =
        opened.add(
            context.groupLoop(
                "retry",
                500,
                List.of(context.topics().retry()),
                intake,
                context.parking(producer, "retry")));
  }

  public RetryStage start() {
    switches.start();
    firing.start();
    long rescanMs = config.rescan().toMillis();
    scheduler.scheduleWithFixedDelay(
        intake::scanQuietly, rescanMs, rescanMs, TimeUnit.MILLISECONDS);
    scheduler.scheduleWithFixedDelay(
        loop::countInFlight, 0, IN_FLIGHT_COUNT_MS, TimeUnit.MILLISECONDS);
    consumer.start();
    log.info(
        "Retry stage {} started on {}: at most {}/s and {} in flight",
        context.nodeId(),
        context.topics().retry(),
        config.ratePerSecond(),
        config.maxInFlight());
    return this;
  }

  /**
   * Stops consuming, scanning and firing, then the switches and the producer (the reverse of their
   * opening; a part that fails to close is logged and the rest still close); pending retries stay
   * RETRYING in the database for the next run.
   */
  @Override
  public void close() {
    opened.close();
    log.info("Retry stage {} stopped", context.nodeId());
  }
}
