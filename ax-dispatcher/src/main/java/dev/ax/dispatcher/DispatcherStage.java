package dev.ax.dispatcher;

import dev.ax.common.kafka.ConsumerLoop;
import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.kafka.KafkaConnection;
import dev.ax.common.kafka.Topics;
import dev.ax.common.stage.StageContext;
import dev.ax.common.stage.Switches;
import dev.ax.common.store.LeaseStore;
import dev.ax.common.store.OutboxStore;
import dev.ax.common.store.PoolStore;
import dev.ax.common.store.ShardEvents;
import dev.ax.common.store.TaskStore;
import dev.ax.common.time.Clock;
import dev.ax.dispatcher.claim.ClaimLoop;
import dev.ax.dispatcher.claim.HandBack;
import dev.ax.dispatcher.claim.HoldBudget;
import dev.ax.dispatcher.claim.RunStarter;
import dev.ax.dispatcher.claim.ShardFanOut;
import dev.ax.dispatcher.claim.StoreDispatcherPort;
import dev.ax.dispatcher.claim.TaskSpecs;
import dev.ax.dispatcher.executor.ExecutorRegistry;
import dev.ax.dispatcher.executor.HostAllowList;
import dev.ax.dispatcher.executor.HttpTaskExecutor;
import dev.ax.dispatcher.executor.ShellTaskExecutor;
import dev.ax.dispatcher.executor.net.AddressRange;
import dev.ax.dispatcher.executor.net.CallSigners;
import dev.ax.dispatcher.executor.net.HttpTargetPolicy;
import dev.ax.dispatcher.executor.net.PortList;
import dev.ax.dispatcher.executor.pool.PoolCalls;
import dev.ax.dispatcher.intake.DueIntake;
import dev.ax.dispatcher.intake.TaskGroups;
import dev.ax.dispatcher.lease.LeasePool;
import dev.ax.dispatcher.lease.LeaseRenewer;
import dev.ax.dispatcher.lease.RunLeases;
import dev.ax.dispatcher.run.AttemptRunner;
import dev.ax.dispatcher.run.BulkheadLimits;
import dev.ax.dispatcher.run.Bulkheads;
import dev.ax.dispatcher.run.OutboxRelay;
import dev.ax.dispatcher.run.OutcomePlanner;
import dev.ax.dispatcher.run.OutcomeRecorder;
import dev.ax.dispatcher.run.OwedEvents;
import dev.ax.dispatcher.run.QueueBound;
import dev.ax.dispatcher.run.RelaySchedule;
import dev.ax.dispatcher.run.RetryPlanner;
import dev.ax.dispatcher.run.UpstreamTasks;
import dev.ax.dispatcher.store.ClaimStore;
import dev.ax.dispatcher.store.ClaimedInstance;
import dev.ax.dispatcher.store.OutcomeStore;
import dev.ax.spi.TaskExecutor;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Dispatcher: consumes {@code ax.task.due} and {@code ax.task.due.retry} in one consumer group,
 * holds each event for its task group's bulkhead, claims as many held instances as each bulkhead
 * has room for with one conditional UPDATE (DISPATCHED → RUNNING, attempt + 1, owner, lease), runs
 * the instances it won through the executor registry with a timeout, and records each outcome with
 * a completion event. An instance it did not win belongs to someone else: counted, skipped, never
 * an error.
 *
 * <p>This class only wires the parts and orders their start and stop. Each part is handed what it
 * uses (its stores, the clock, the meters, topic names, the node id, the producer), built here
 * once; none sees the stage's context. Each part owns its thread:
 *
 * <ul>
 *   <li>{@link DueIntake} on the consumer thread: decodes, drops stale epochs, hands batches over,
 *       pauses and resumes partitions (back-pressure), asks for a hand-back on revocation.
 *   <li>{@link ClaimLoop} on its own thread, the only one that touches the held events: claims what
 *       the pools have room for, sheds stalled groups ({@link HoldBudget}), claims late the events
 *       that were not due yet, hands held events back on revocation and at stop ({@link HandBack});
 *       it starts the runs it won through the {@link RunStarter}.
 *   <li>{@link LeaseRenewer} on its own thread and its own small pool ({@link LeasePool}): extends
 *       the leases of running attempts and of those whose outcome is not recorded yet, and
 *       interrupts an attempt whose row it finds is no longer this node's.
 *   <li>The pools' worker threads run attempts ({@link Bulkheads}); the recorder's thread writes
 *       outcomes ({@link OutcomeRecorder}).
 * </ul>
 *
 * <p>Events on {@code ax.task.due} from an older ticker epoch than the newest seen are dropped and
 * counted; the new leader emits their instances again if they are still unclaimed. On partition
 * revocation and on shutdown, held events are handed back to their topic for the partitions' next
 * owner; running attempts finish within the grace period.
 *
 * <p>Thread-safety: {@link #start()} once, {@link #close()} from any thread.
 */
public final class DispatcherStage implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(DispatcherStage.class);
  private static final int MAX_POLL_RECORDS = 500;

  /**
   * The longest any call of the dispatcher's producer blocks ({@code max.block.ms}; Kafka's default
   * is 60 s): waiting for a topic's metadata or for room in a full buffer while the broker is away.
   * The recorder sends an outcome's events after writing it, the claim loop hands events back, and
   * neither may be held up past a run lease (at least 5 s, {@code AX_DISPATCHER_LEASE}) by one
   * call: a send that cannot start within this fails, and the outbox relays its event later.
   */
  static final Duration PRODUCER_MAX_BLOCK = Duration.ofSeconds(2);

  private final StageContext context;
  private final KafkaProducer<String, byte[]> producer;
  private final OutcomeRecorder recorder;
  private final OutboxRelay outbox;
  private final UpstreamTasks upstreams;
  private final Switches switches;
  private final Bulkheads bulkheads;
  private final TaskSpecs specs;
  private final ClaimLoop claims;
  private final LeaseRenewer renewer;
  private final RunLeases leases;
  private final LeasePool leasePool;
  private final ConsumerLoop loop;
  private final Optional<ExecutorRegistry> ownRegistry;
  private final AtomicBoolean closed = new AtomicBoolean();

  /** With the built-in executors, which {@link #close()} closes (the HTTP connection pool). */
  public DispatcherStage(StageContext context, DispatcherConfig config) {
    this(context, config, defaultRegistry(context, config), true);
  }

  /** With {@code registry}'s executors, which stay the caller's to close. */
  public DispatcherStage(StageContext context, DispatcherConfig config, ExecutorRegistry registry) {
    this(context, config, registry, false);
  }

  private DispatcherStage(
      StageContext context, DispatcherConfig config, ExecutorRegistry registry, boolean owned) {
    this.context = context;
    this.ownRegistry = owned ? Optional.of(registry) : Optional.empty();
    String node = context.nodeId();
    Clock clock = context.clock();
    MeterRegistry meters = context.meters();
    Topics topics = context.topics();
    this.leases = new RunLeases(new ClaimStore(context.dataSource()), node, config.lease());
    TaskStore tasks = new TaskStore(context.dataSource());
    this.specs = new TaskSpecs(tasks, context.common().specCacheMaxBytes());
    this.producer = producer(context.kafka(), node + "-dispatcher", meters);
    this.switches =
        context.switches(
            "dispatcher", Set.of(Switches.RETRIES, Switches.DISPATCH, Switches.SERIAL));
    this.upstreams =
        new UpstreamTasks(context.kafka(), topics.dependencies(), node + "-dispatcher-upstreams");
    this.outbox =
        new OutboxRelay(
            new OutboxStore(context.dataSource()),
            producer,
            RelaySchedule.every(config.outboxRelayAfter(), clock),
            meters);
    this.recorder =
        new OutcomeRecorder(
            new OutcomeStore(context.dataSource(), new ShardEvents(topics, node)),
            outbox,
            new OutcomePlanner(
                node,
                new RetryPlanner(
                    switches::retriesEnabled, () -> ThreadLocalRandom.current().nextDouble()),
                new OwedEvents(topics, node, upstreams::mayHaveDependents),
                clock),
            meters);
    this.leasePool =
        LeasePool.open(context.common(), node + "-dispatcher-leases", context.controlDataSource());
    this.renewer = new LeaseRenewer(leases.on(new ClaimStore(leasePool.dataSource())), clock);
    this.bulkheads =
        new Bulkheads(
            clock,
            new BulkheadLimits(
                config.groupThreads(),
                config.threads(),
                config.queue(),
                config.maxGroups(),
                AttemptRunner.DEFAULT_IDLE_KEEP_ALIVE),
            // An attempt that could not start within a lease goes back to DISPATCHED as the same
            // attempt (the renewer makes that round trip, off the watchdog's thread).
            new QueueBound(config.lease(), renewer::giveBack),
            recorder::accept);
    int pollSize = Math.min(MAX_POLL_RECORDS, config.threads() + config.queue());
    this.claims = claimLoop(config.holdFor(), pollSize, registry);
    DueIntake intake =
        new DueIntake(
            new LeaseStore(context.dataSource()),
            new TaskGroups(tasks, specs),
            bulkheads,
            claims.inbox(),
            topics.dueRetry(),
            pollSize,
            clock,
            meters);
    this.loop =
        context.groupLoop(
            "dispatcher",
            pollSize,
            List.of(topics.due(), topics.dueRetry()),
            intake,
            // A redelivered due event claims nothing: no need to wait for each commit.
            ConsumerLoop.CommitMode.ASYNC,
            context.parking(producer, "dispatcher"));
  }

  /**
   * The claim loop over this stage's pools, specs, leases and producer (wired before it), holding
   * events up to {@code pollSize} and a stalled group's for {@code holdFor}.
   */
  private ClaimLoop claimLoop(Duration holdFor, int pollSize, ExecutorRegistry registry) {
    MeterRegistry meters = context.meters();
    return new ClaimLoop(
        context.clock(),
        new StoreDispatcherPort(
            bulkheads,
            specs,
            leases,
            RunStarter.of(
                specs,
                bulkheads,
                registry,
                meters,
                new ShardFanOut(
                    context.dataSource(),
                    new ShardEvents(context.topics(), context.nodeId()),
                    outbox,
                    context.nodeId(),
                    context.clock(),
                    meters)),
            new HandBack(producer, context.topics(), meters),
            switches::dispatchEnabled,
            switches::serial),
        new HoldBudget(holdFor),
        pollSize,
        meters);
  }

  /**
   * Gives back the claims still queued when the grace ran out, so another dispatcher starts them as
   * the same attempt once the reaper emits them again, instead of after their lease as a take-back.
   */
  private void releaseUnstarted(List<ClaimedInstance> unstarted) {
    if (unstarted.isEmpty()) {
      return;
    }
    try {
      int released = leases.releaseUnstarted(unstarted, context.clock().millis()).size();
      log.info(
          "Released {} of {} claimed attempt(s) never started; the reaper emits them again after"
              + " AX_REAPER_UNCLAIMED_AFTER",
          released,
          unstarted.size());
    } catch (RuntimeException e) {
      // Whatever failed, the stop goes on: rows not released are taken back after their lease.
      log.warn(
          "Could not release (all of) {} claimed attempt(s) never started; those not released are"
              + " taken back after their lease: {}",
          unstarted.size(),
          e.toString());
    }
  }

  /**
   * The dispatcher's producer: a stage's, with its calls bounded by {@link #PRODUCER_MAX_BLOCK}.
   */
  static KafkaProducer<String, byte[]> producer(
      KafkaConnection kafka, String clientId, MeterRegistry meters) {
    return KafkaClients.producer(kafka, clientId, meters, PRODUCER_MAX_BLOCK);
  }

  private static ExecutorRegistry defaultRegistry(StageContext context, DispatcherConfig config) {
    TaskExecutor http =
        new HttpTaskExecutor(
            new HttpTargetPolicy(
                new HostAllowList(config.httpAllowedHosts()),
                config.httpAllowedRanges().stream()
                    .filter(r -> !r.isBlank())
                    .map(AddressRange::parse)
                    .toList(),
                PortList.parse(config.httpAllowedPorts()),
                config.httpRequireTls(),
                InetAddress::getAllByName),
            CallSigners.of(config.httpSigningSecret(), config.httpSigningSecretsFile()),
            config.httpMaxResponseExcerpt(),
            context.clock(),
            Optional.of(
                PoolCalls.of(
                    new PoolStore(context.dataSource()), context.clock(), context.meters())));
    Optional<TaskExecutor> shell =
        ShellTaskExecutor.ifConfigured(
                config.shellScriptDir(),
                config.shellMaxOutput(),
                config.shellKillGrace(),
                context.clock())
            .map(TaskExecutor.class::cast);
    log.info(
        "Shell executor: {}",
        shell.isPresent()
            ? "scripts from " + config.shellScriptDir()
            : "off (AX_SHELL_SCRIPT_DIR is empty)");
    return ExecutorRegistry.discover(http, shell, Thread.currentThread().getContextClassLoader());
  }

  public DispatcherStage start() {
    switches.start(); // first: a dispatcher started with dispatch off claims nothing
    renewer.start(bulkheads);
    claims.start();
    upstreams.start();
    outbox.start();
    recorder.start();
    loop.start();
    log.info("Dispatcher {} started on {}", context.nodeId(), context.topics().due());
    return this;
  }

  /**
   * Stops fetching, hands held events back, lets running attempts finish within the grace period,
   * records them, stops. Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    loop.close();
    claims.close(); // hands back what is held and what the intake handed over last
    releaseUnstarted(bulkheads.shutdown(context.common().shutdownGrace()));
    recorder.close();
    ownRegistry.ifPresent(ExecutorRegistry::close); // no attempt runs any more
    // Only now: a run still going in the grace period, or whose outcome the recorder was still
    // writing, keeps its lease, or the reaper would start it again elsewhere.
    renewer.close();
    leasePool.close();
    producer.flush(); // the last outcomes' events acknowledged, so the relay deletes their rows
    outbox.close();
    upstreams.close();
    specs.close();
    switches.close();
    producer.close(Duration.ofSeconds(5));
    log.info("Dispatcher {} stopped", context.nodeId());
  }
}
