package dev.ax.dispatcher;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.ax.common.config.ConfigKeys;
import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskDueEvent;
import dev.ax.common.kafka.ConsumerLoop;
import dev.ax.common.kafka.EventDecoder;
import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.stage.StageContext;
import dev.ax.common.stage.Switches;
import dev.ax.common.store.ClaimedInstance;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.LeaseStore;
import dev.ax.common.store.OutboxStore;
import dev.ax.common.store.StoredTask;
import dev.ax.common.store.SwitchStore;
import dev.ax.common.store.TaskStore;
import dev.ax.common.thread.DaemonThreads;
import dev.ax.common.time.SaturatingMillis;
import dev.ax.dispatcher.executor.ExecutorRegistry;
import dev.ax.dispatcher.executor.HostAllowList;
import dev.ax.dispatcher.executor.HttpTaskExecutor;
import dev.ax.dispatcher.executor.ShellTaskExecutor;
import dev.ax.dispatcher.run.AttemptRunner;
import dev.ax.dispatcher.run.Bulkheads;
import dev.ax.dispatcher.run.OutboxRelay;
import dev.ax.dispatcher.run.OutcomeRecorder;
import dev.ax.dispatcher.run.RetryPlanner;
import dev.ax.dispatcher.run.UpstreamTasks;
import dev.ax.spi.TaskExecutor;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
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
 * <p>Events on {@code ax.task.due} from an older ticker epoch than the newest seen are dropped and
 * counted; the new leader emits their instances again if they are still unclaimed.
 *
 * <p>When a poll's worth of events is held, the consumer pauses its partitions (staying in the
 * group) instead of buffering. Before it pauses, a group whose pool has had no room for {@code
 * AX_DISPATCHER_HOLD_FOR} sheds the held events its pool would not start within that time: they
 * stay DISPATCHED for the reaper, so one stalled group does not stop fetching for the others
 * ({@link HoldBudget}). On partition revocation and on shutdown, held events are handed back to
 * their topic for the partitions' next owner; running attempts finish within the grace period.
 *
 * <p>Threading: one consumer thread polls; a scheduler thread drains held events and renews run
 * leases ({@link #drainHeld()} is synchronized); worker threads run; one recorder thread writes.
 */
public final class DispatcherStage implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(DispatcherStage.class);
  private static final int MAX_POLL_RECORDS = 500;

  /** The furthest ahead of this node's clock a due event may be and still get a timed re-claim. */
  static final Duration MAX_EARLY_CLAIM_WAIT = Duration.ofSeconds(60);

  private final StageContext context;
  private final InstanceStore instances;
  private final TaskStore tasks;
  private final ExecutorRegistry registry;
  private final KafkaProducer<String, byte[]> producer;
  private final OutcomeRecorder recorder;
  private final OutboxRelay outbox;
  private final UpstreamTasks upstreams;
  private final Switches switches;
  private final Bulkheads bulkheads;
  private final HeldEvents held = new HeldEvents();
  private final HoldBudget budget;
  private final TaskSpecs specs;
  private final Cache<String, String> groupByTask =
      Caffeine.newBuilder().maximumSize(100_000).build();
  private final ConsumerLoop loop;
  private final Duration lease;
  private final Counter claimed;
  private final Timer claimTime;
  private final Counter conflicts;
  private final EventDecoder<TaskDueEvent> dueEvents;
  private final DistributionSummary lateness;
  private final int pollSize;
  private boolean paused;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Counter staleEpoch;
  private final Counter handedBack;
  private final Counter shed;

  /** The newest ticker epoch seen on {@code ax.task.due}; touched by the consumer thread only. */
  private long newestEpoch = -1;

  /**
   * The ticker lease's epoch as last read; consumer thread only. A due event whose epoch is newer
   * than any lease ever had was not sent by a ticker, and must not make every real event look
   * stale.
   */
  private long leaseEpochRead = -1;

  /**
   * When {@link #leaseEpochRead} was read; consumer thread only. A new leader's first event within
   * {@link #LEASE_REREAD_MS} of a read is dropped too, and its instance emitted again by the
   * reaper.
   */
  private long leaseReadAtMs = Long.MIN_VALUE / 2;

  private static final long LEASE_REREAD_MS = 100;

  private final LeaseStore leases;

  private final ScheduledExecutorService retries =
      DaemonThreads.scheduler("ax-dispatcher-due-retry");

  public DispatcherStage(StageContext context) {
    this(context, defaultRegistry(context));
  }

  public DispatcherStage(StageContext context, ExecutorRegistry registry) {
    this.context = context;
    this.instances = new InstanceStore(context.dataSource());
    this.leases = new LeaseStore(context.dataSource());
    this.specs =
        new TaskSpecs(
            new TaskStore(context.dataSource()),
            context.config().get(ConfigKeys.SPEC_CACHE_MAX_BYTES));
    this.tasks = new TaskStore(context.dataSource());
    this.registry = registry;
    this.lease = context.config().get(ConfigKeys.DISPATCHER_LEASE);
    this.producer =
        KafkaClients.producer(context.bootstrapServers(), context.nodeId() + "-dispatcher");
    this.switches =
        new Switches(
            new SwitchStore(context.dataSource()),
            context.config().get(ConfigKeys.SWITCH_POLL),
            "ax-dispatcher");
    this.upstreams =
        new UpstreamTasks(
            context.bootstrapServers(),
            context.topics().dependencies(),
            context.nodeId() + "-dispatcher-upstreams");
    this.outbox =
        new OutboxRelay(
            new OutboxStore(context.dataSource()),
            producer,
            context.clock(),
            context.config().get(ConfigKeys.OUTBOX_RELAY_AFTER),
            context.meters());
    this.recorder =
        new OutcomeRecorder(
            context,
            outbox,
            new RetryPlanner(
                switches::retriesEnabled, () -> ThreadLocalRandom.current().nextDouble()),
            upstreams::mayHaveDependents);
    int threads = context.config().get(ConfigKeys.DISPATCHER_THREADS);
    int queue = context.config().get(ConfigKeys.DISPATCHER_QUEUE);
    this.bulkheads =
        new Bulkheads(
            context.clock(),
            context.config().get(ConfigKeys.DISPATCHER_GROUP_THREADS),
            threads,
            queue,
            context.config().get(ConfigKeys.DISPATCHER_MAX_GROUPS),
            AttemptRunner.DEFAULT_IDLE_KEEP_ALIVE,
            recorder::accept);
    this.pollSize = Math.min(MAX_POLL_RECORDS, threads + queue);
    this.claimed = context.meters().counter("ax.dispatcher.claimed");
    this.claimTime =
        Timer.builder("ax.dispatcher.claim")
            .description("the conditional UPDATE transaction that claims held instances")
            .register(context.meters());
    this.conflicts = context.meters().counter("ax.dispatcher.claim.conflicts");
    this.dueEvents =
        EventDecoder.of(TaskDueEvent.class, "due event", "dispatcher", context.meters());
    this.staleEpoch = context.meters().counter("ax.dispatcher.stale.epoch.events");
    this.handedBack = context.meters().counter("ax.dispatcher.handed.back.events");
    this.shed = context.meters().counter("ax.dispatcher.shed.events");
    this.budget = new HoldBudget(context.config().get(ConfigKeys.DISPATCHER_HOLD_FOR));
    this.lateness =
        DistributionSummary.builder("ax.dispatcher.lateness.ms")
            .description("claim time minus due time")
            .publishPercentiles(0.5, 0.99)
            .register(context.meters());
    this.loop =
        new ConsumerLoop(
            "ax-dispatcher",
            KafkaClients.consumer(
                context.bootstrapServers(),
                context.topics().group("dispatcher"),
                context.nodeId() + "-dispatcher",
                pollSize),
            List.of(context.topics().due(), context.topics().dueRetry()),
            new ConsumerLoop.BatchHandler() {
              @Override
              public void handle(ConsumerRecords<String, byte[]> records) {
                dispatch(records);
              }

              @Override
              public void beforePoll(KafkaConsumer<String, byte[]> consumer) {
                applyBackpressure(consumer);
              }

              @Override
              public void onRevoked(Collection<TopicPartition> partitions) {
                if (!partitions.isEmpty()) {
                  try {
                    handBackHeld("partitions revoked");
                  } catch (RuntimeException e) {
                    // Inside poll(): an exception here would end the consumer thread.
                    log.warn(
                        "Could not hand held events back; the reaper re-emits them: {}",
                        e.toString());
                  }
                }
              }
            },
            Duration.ofSeconds(1),
            // A redelivered due event claims nothing: no need to wait for each commit.
            ConsumerLoop.CommitMode.ASYNC,
            context.parking(producer, "dispatcher"));
  }

  private static ExecutorRegistry defaultRegistry(StageContext context) {
    TaskExecutor http =
        new HttpTaskExecutor(
            new HostAllowList(context.config().get(ConfigKeys.HTTP_ALLOWED_HOSTS)),
            context.config().get(ConfigKeys.HTTP_MAX_RESPONSE_EXCERPT),
            context.clock());
    Optional<TaskExecutor> shell =
        ShellTaskExecutor.ifConfigured(
                context.config().get(ConfigKeys.SHELL_SCRIPT_DIR),
                context.config().get(ConfigKeys.SHELL_MAX_OUTPUT),
                context.config().get(ConfigKeys.SHELL_KILL_GRACE),
                context.clock())
            .map(TaskExecutor.class::cast);
    log.info(
        "Shell executor: {}",
        shell.isPresent()
            ? "scripts from " + context.config().get(ConfigKeys.SHELL_SCRIPT_DIR)
            : "off (AX_SHELL_SCRIPT_DIR is empty)");
    return ExecutorRegistry.discover(http, shell, Thread.currentThread().getContextClassLoader());
  }

  public DispatcherStage start() {
    long renewEveryMs = Math.max(1000, SaturatingMillis.toMillis(lease) / 3);
    retries.scheduleWithFixedDelay(
        this::renewLeases, renewEveryMs, renewEveryMs, TimeUnit.MILLISECONDS);
    retries.scheduleWithFixedDelay(this::drainHeldQuietly, 20, 20, TimeUnit.MILLISECONDS);
    switches.start();
    upstreams.start();
    outbox.start();
    recorder.start();
    loop.start();
    log.info("Dispatcher {} started on {}", context.nodeId(), context.topics().due());
    return this;
  }

  private void applyBackpressure(KafkaConsumer<String, byte[]> consumer) {
    if (held.size() >= pollSize) {
      shedStalledBacklogs();
    }
    boolean full = held.size() >= pollSize;
    if (full) {
      // Every time, not only on the change: partitions handed over by a rebalance arrive unpaused.
      consumer.pause(consumer.assignment());
      if (!paused) {
        paused = true;
        log.debug("Worker pool full: fetching paused");
      }
    } else if (paused) {
      consumer.resume(consumer.paused());
      paused = false;
      log.debug("Worker pool has room: fetching resumed");
    }
  }

  /**
   * Leaves to the reaper the held events of each group whose pool has been full for {@code
   * AX_DISPATCHER_HOLD_FOR} beyond what that pool started in the last {@code
   * AX_DISPATCHER_HOLD_FOR}, latest due first. Their rows stay DISPATCHED and unclaimed, so the
   * reaper emits them again after {@code AX_REAPER_UNCLAIMED_AFTER}, to this dispatcher or another.
   */
  private void shedStalledBacklogs() {
    long nowMs = context.clock().millis();
    for (String group : held.groups()) {
      int keep = budget.keep(group, nowMs);
      List<TaskDueEvent> left = held.keepOldest(group, keep);
      if (left.isEmpty()) {
        continue;
      }
      shed.increment(left.size());
      if (budget.startsShedding(group)) {
        log.info(
            "Group '{}' has had no room in its pool for over {} ms: it keeps its {} oldest held"
                + " due event(s), as many as its pool started in that time, and leaves {} later"
                + " one(s) DISPATCHED for the reaper (re-emitted after AX_REAPER_UNCLAIMED_AFTER),"
                + " so fetching goes on for the other groups",
            group,
            budget.holdFor().toMillis(),
            keep,
            left.size());
      } else {
        log.debug(
            "Group '{}' still stalled: {} due event(s) left for the reaper", group, left.size());
      }
    }
  }

  /** Whether a ticker leader has held {@code epoch}; reads the lease only for a new epoch. */
  private boolean leaderHadEpoch(long epoch) {
    if (epoch <= leaseEpochRead) {
      return true;
    }
    long nowMs = context.clock().millis();
    if (nowMs - leaseReadAtMs < LEASE_REREAD_MS) {
      return false; // read just now: a flood of forged epochs costs ten reads a second
    }
    leaseReadAtMs = nowMs;
    leaseEpochRead = Math.max(leaseEpochRead, leases.newestEpoch(LeaseFence.TICKER));
    return epoch <= leaseEpochRead;
  }

  private void dispatch(ConsumerRecords<String, byte[]> records) {
    List<TaskDueEvent> events = new ArrayList<>();
    List<Boolean> retried = new ArrayList<>();
    for (ConsumerRecord<String, byte[]> record : records) {
      Optional<TaskDueEvent> decoded = dueEvents.decode(record);
      if (decoded.isEmpty()) {
        continue;
      }
      TaskDueEvent event = decoded.get();
      boolean fromRetry = record.topic().equals(context.topics().dueRetry());
      if (!fromRetry && event.epoch() > newestEpoch) {
        if (!leaderHadEpoch(event.epoch())) {
          dueEvents.skipped(
              record,
              "epoch "
                  + event.epoch()
                  + " is newer than any ticker lease ("
                  + leaseEpochRead
                  + ")");
          continue;
        }
        newestEpoch = event.epoch();
      }
      events.add(event);
      retried.add(fromRetry);
    }
    if (events.isEmpty()) {
      return;
    }
    if (log.isDebugEnabled()) {
      long nowMs = context.clock().millis();
      long maxTransitMs = 0;
      for (TaskDueEvent event : events) {
        maxTransitMs =
            Math.max(maxTransitMs, SaturatingMillis.subtract(nowMs, event.emittedAtMs()));
      }
      log.debug("Polled {} due event(s), in transit up to {} ms", events.size(), maxTransitMs);
    }
    Map<String, String> groups = groupsOf(events);
    for (int i = 0; i < events.size(); i++) {
      TaskDueEvent event = events.get(i);
      if (!retried.get(i) && event.epoch() < newestEpoch) {
        // Sent by a leader that has since lost its lease. Its instance, if still unclaimed, is
        // emitted again by the new leader at its epoch (Reaper#adoptPredecessorDispatches).
        staleEpoch.increment();
        log.debug(
            "Dropping due event of {} from epoch {} (newest seen {})",
            event.instanceId(),
            event.epoch(),
            newestEpoch);
        continue;
      }
      // Held by pool name, not raw group: a bounded set of keys, and a task group can never be
      // mistaken for the retry pool (poolFor never returns it).
      String pool =
          retried.get(i)
              ? Bulkheads.RETRY_GROUP
              : bulkheads.poolFor(groups.getOrDefault(event.taskId(), TaskSpec.DEFAULT_GROUP));
      held.add(pool, event);
    }
    drainHeld();
  }

  /**
   * Claims and starts, group by group, as many held instances as each group's pool can take, oldest
   * due first; the rest stay held (unclaimed, so another dispatcher or the reaper can still get
   * them) until their pool has room. Called after every poll and every few milliseconds.
   */
  private synchronized void drainHeld() {
    Map<String, TaskDueEvent> events = new LinkedHashMap<>();
    Map<String, String> groupOfInstance = new HashMap<>();
    long passMs = context.clock().millis();
    for (String group : held.groups()) {
      int room = bulkheads.freeCapacity(group);
      List<TaskDueEvent> taken = held.take(group, room);
      for (TaskDueEvent event : taken) {
        if (events.putIfAbsent(event.instanceId(), event) == null) {
          groupOfInstance.put(event.instanceId(), group);
        }
      }
      budget.drained(group, taken.size(), taken.size() >= room && held.size(group) > 0, passMs);
    }
    if (events.isEmpty()) {
      return;
    }
    Set<String> taskIds = new HashSet<>();
    events.values().forEach(e -> taskIds.add(e.taskId()));
    Future<?> prefetch = specs.prefetch(taskIds);
    long nowMs = context.clock().millis();
    long claimStartNanos = System.nanoTime();
    List<ClaimedInstance> won =
        instances.claim(
            events.keySet(), context.nodeId(), SaturatingMillis.atMs(nowMs, lease), nowMs);
    claimTime.record(System.nanoTime() - claimStartNanos, TimeUnit.NANOSECONDS);
    if (log.isDebugEnabled()) {
      long oldestDueMs = Long.MAX_VALUE;
      for (TaskDueEvent event : events.values()) {
        oldestDueMs = Math.min(oldestDueMs, event.dueAtMs());
      }
      log.debug(
          "Claimed {} of {} held instance(s) in {} ms, the oldest {} ms past due",
          won.size(),
          events.size(),
          (System.nanoTime() - claimStartNanos) / 1_000_000,
          SaturatingMillis.subtract(nowMs, oldestDueMs));
    }
    claimed.increment(won.size());
    conflicts.increment(events.size() - won.size());
    retryNotYetDue(events, won, nowMs);
    if (won.isEmpty()) {
      return;
    }
    try {
      startRuns(won, groupOfInstance, prefetch);
    } catch (RuntimeException e) {
      // Claimed but not started: do not replay the batch (the claim would win nothing now);
      // the rows stay RUNNING until their lease expires and the reaper hands them back.
      log.error(
          "{} claimed instance(s) could not be started; the reaper recovers them after their lease",
          won.size(),
          e);
    }
  }

  private void drainHeldQuietly() {
    try {
      drainHeld();
    } catch (RuntimeException e) {
      log.warn("Could not claim held instances, retrying shortly: {}", e.toString());
    }
  }

  /** The group of each event's task: cached by task id, read in one query for the misses. */
  private Map<String, String> groupsOf(List<TaskDueEvent> events) {
    Map<String, String> groups = new HashMap<>();
    Set<String> missing = new HashSet<>();
    for (TaskDueEvent event : events) {
      String group =
          event.group() != null ? event.group() : groupByTask.getIfPresent(event.taskId());
      if (group != null) {
        groups.put(event.taskId(), group);
      } else {
        missing.add(event.taskId());
      }
    }
    for (StoredTask task : tasks.findAll(missing).values()) {
      groupByTask.put(task.spec().taskId(), task.spec().group());
      specs.put(task);
      groups.put(task.spec().taskId(), task.spec().group());
    }
    return groups;
  }

  /**
   * Events whose instance was not claimed because, on this node's clock, it is not due yet (the
   * ticker's clock is a little ahead): claimed again at their due time instead of waiting for the
   * reaper. Only those due within {@link #MAX_EARLY_CLAIM_WAIT}: an event due further ahead is not
   * clock skew but a bogus or foreign message, and a timer held for it until then would be memory
   * nobody bounds; the reaper re-emits its instance if it really is unclaimed.
   */
  private void retryNotYetDue(
      Map<String, TaskDueEvent> events, List<ClaimedInstance> won, long nowMs) {
    if (events.size() == won.size()) {
      return;
    }
    Set<String> wonIds = new HashSet<>();
    won.forEach(c -> wonIds.add(c.instanceId()));
    for (TaskDueEvent event : events.values()) {
      long delayMs = SaturatingMillis.subtract(event.dueAtMs(), nowMs);
      if (!wonIds.contains(event.instanceId())
          && delayMs > 0
          && delayMs <= MAX_EARLY_CLAIM_WAIT.toMillis()) {
        retries.schedule(() -> claimAndRunQuietly(event), delayMs, TimeUnit.MILLISECONDS);
      }
    }
  }

  private void claimAndRunQuietly(TaskDueEvent event) {
    try {
      long nowMs = context.clock().millis();
      List<ClaimedInstance> won =
          instances.claim(
              List.of(event.instanceId()),
              context.nodeId(),
              SaturatingMillis.atMs(nowMs, lease),
              nowMs);
      if (!won.isEmpty()) {
        claimed.increment(won.size());
        startRuns(won, Map.of(), CompletableFuture.completedFuture(null));
      }
    } catch (RuntimeException e) {
      log.warn(
          "Late claim of {} failed; the reaper re-emits it: {}", event.instanceId(), e.toString());
    }
  }

  /**
   * Extends the lease of every run in progress, a third of a lease ahead of its expiry, so that
   * only runs whose dispatcher died are taken back by the reaper, however long they run.
   */
  private void renewLeases() {
    try {
      Set<InstanceStore.RunKey> runs = bulkheads.running();
      long nowMs = context.clock().millis();
      int renewed =
          instances.renewLeases(runs, context.nodeId(), SaturatingMillis.atMs(nowMs, lease), nowMs);
      if (renewed < runs.size()) {
        log.debug(
            "{} of {} run lease(s) not renewed: those runs finished or were taken back",
            runs.size() - renewed,
            runs.size());
      }
    } catch (RuntimeException e) {
      log.warn("Could not renew run leases; retrying at the next interval: {}", e.toString());
    }
  }

  /**
   * @param groupOfInstance the pool each instance was admitted to; by default its task's group's
   * @param prefetch the read of these instances' specs started before the claim
   */
  private void startRuns(
      List<ClaimedInstance> won, Map<String, String> groupOfInstance, Future<?> prefetch) {
    for (ClaimedInstance instance : won) {
      if (instance.attempt() == 1) { // a later attempt is late by design (backoff, take-back)
        lateness.record(instance.claimedAtMs() - instance.dueAtMs());
      }
    }
    Map<String, StoredTask> specOfTask = specs.of(won, prefetch);
    for (ClaimedInstance instance : won) {
      StoredTask task = specOfTask.get(instance.taskId());
      if (task == null) {
        bulkheads
            .runnerFor(bulkheads.poolFor(TaskSpec.DEFAULT_GROUP))
            .fail(instance, "unknown", "task " + instance.taskId() + " not found");
        continue;
      }
      AttemptRunner runner =
          bulkheads.runnerFor(
              groupOfInstance.getOrDefault(
                  instance.instanceId(), bulkheads.poolFor(task.spec().group())));
      Optional<TaskExecutor> executor = registry.find(task.spec().executor());
      if (executor.isEmpty()) {
        runner.fail(
            instance,
            task.spec().group(),
            "no executor installed for "
                + task.spec().executor().type()
                + (task.spec().executor().handler() == null
                    ? ""
                    : " handler '" + task.spec().executor().handler() + "'"));
        continue;
      }
      runner.submit(instance, task, executor.get());
    }
    specs.doneWith(specOfTask.values());
  }

  /**
   * Sends every held (unclaimed) event back to its topic, keyed as before, so whoever owns its
   * partition next claims it at once instead of the reaper after {@code AX_REAPER_UNCLAIMED_AFTER}.
   * The offsets of these events are already committed; the claim being conditional, a copy that
   * reaches a dispatcher that also still holds the original runs once.
   */
  private void handBackHeld(String why) {
    Map<String, List<TaskDueEvent>> all = held.takeAll();
    int count = 0;
    for (Map.Entry<String, List<TaskDueEvent>> group : all.entrySet()) {
      String topic =
          group.getKey().equals(Bulkheads.RETRY_GROUP)
              ? context.topics().dueRetry()
              : context.topics().due();
      for (TaskDueEvent event : group.getValue()) {
        producer.send(new ProducerRecord<>(topic, event.taskId(), AxJson.write(event)));
        count++;
      }
    }
    if (count > 0) {
      producer.flush();
      handedBack.increment(count);
      log.info("Handed {} unclaimed due event(s) back to their topic: {}", count, why);
    }
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
    retries.shutdownNow();
    try {
      handBackHeld("shutting down");
    } catch (RuntimeException e) {
      log.warn("Could not hand held events back; the reaper re-emits them: {}", e.toString());
    }
    bulkheads.shutdown(context.config().get(ConfigKeys.SHUTDOWN_GRACE));
    recorder.close();
    producer.flush(); // the last outcomes' events acknowledged, so the relay deletes their rows
    outbox.close();
    upstreams.close();
    specs.close();
    switches.close();
    producer.close(Duration.ofSeconds(5));
    log.info("Dispatcher {} stopped", context.nodeId());
  }
}
