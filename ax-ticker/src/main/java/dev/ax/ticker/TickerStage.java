package dev.ax.ticker;

import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.contract.TaskScheduledEvent;
import dev.ax.common.kafka.ConsumerLoop;
import dev.ax.common.kafka.EventDecoder;
import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.kafka.RecordParking;
import dev.ax.common.kafka.Subscription;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.stage.Readiness;
import dev.ax.common.stage.StageContext;
import dev.ax.common.stage.Switches;
import dev.ax.common.store.CalendarStore;
import dev.ax.common.store.CalendarStore.StoredCalendar;
import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.LeaseStore;
import dev.ax.common.store.OutboxStore;
import dev.ax.common.store.ShardEvents;
import dev.ax.common.store.TaskSpecCache;
import dev.ax.common.store.TaskStore;
import dev.ax.ticker.backfill.BackfillCreator;
import dev.ax.ticker.backlog.Backlog;
import dev.ax.ticker.backlog.BacklogStore;
import dev.ax.ticker.fire.CalendarCheck;
import dev.ax.ticker.fire.CalendarDirectory;
import dev.ax.ticker.fire.DueEmitter;
import dev.ax.ticker.fire.FirePlanner;
import dev.ax.ticker.fire.FiringStore;
import dev.ax.ticker.fire.FiringThread;
import dev.ax.ticker.fire.FixedDelayChainer;
import dev.ax.ticker.fire.NotRunSender;
import dev.ax.ticker.fire.StoreTickerPort;
import dev.ax.ticker.fire.TickLimits;
import dev.ax.ticker.fire.TickLoop;
import dev.ax.ticker.leader.LeaderElector;
import dev.ax.ticker.load.AnnouncementIntake;
import dev.ax.ticker.load.WindowLoader;
import dev.ax.ticker.reaper.ChainRepair;
import dev.ax.ticker.reaper.ChainRepairStore;
import dev.ax.ticker.reaper.EndedRunEmitter;
import dev.ax.ticker.reaper.Reaper;
import dev.ax.ticker.reaper.ReaperStore;
import dev.ax.ticker.reaper.Retention;
import dev.ax.ticker.reaper.RetentionPace;
import dev.ax.ticker.reaper.RetentionStore;
import dev.ax.ticker.reaper.RetentionThread;
import dev.ax.ticker.reaper.ShardSettlement;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ticker stage: every node runs one; the node holding the ticker lease ({@link LeaderElector})
 * fires, the others stand by. Parts:
 *
 * <ul>
 *   <li>{@link TickLoop}, owned by {@link FiringThread} ({@code ax-ticker-fire}): the time wheel
 *       and the firing, fenced by the lease, every due event carrying its epoch;
 *   <li>{@link WindowLoader} alone on {@code ax-ticker-load} ({@link TickerThreads}): the next
 *       window from the database, never delayed by a chore;
 *   <li>{@link AnnouncementIntake}: announcements from {@code ax.task.scheduled} on {@code
 *       ax-ticker-scheduled}; every node reads every partition (no consumer group), and a standby
 *       drops them (see its class comment for when a node counts as one);
 *   <li>{@link FixedDelayChainer} on {@code ax-ticker-chain}: next firings of FIXED_DELAY tasks
 *       from completion events;
 *   <li>the periodic chores on {@code ax-ticker-chores}: {@link Reaper} (expired runs, unclaimed
 *       instances, chain repair, adoption), {@link Backlog} gauges, the resend of due events that
 *       failed, and the {@link BackfillCreator} (backfill firings, at a pace);
 *   <li>{@link RetentionThread} ({@code ax-ticker-retention}): rows older than the retention.
 * </ul>
 */
public final class TickerStage implements AutoCloseable, Readiness.Check {

  private static final Logger log = LoggerFactory.getLogger(TickerStage.class);

  private final StageContext context;
  private final KafkaProducer<String, byte[]> producer;
  private final LeaderElector elector;
  private final DueEmitter emitter;
  private final NotRunSender notRun;
  private final WindowLoader loader;
  private final Reaper reaper;
  private final RetentionThread retention;
  private final Switches switches;
  private final Backlog backlog;
  private final BackfillCreator backfills;
  private final ConsumerLoop scheduledConsumer;
  private final ConsumerLoop chainConsumer;
  private final TickerThreads threads = new TickerThreads();
  private final FiringThread firing;
  private final TickerConfig config;

  /** Builds every part once, each handed the stores, clients and clock it uses. */
  public TickerStage(StageContext context, TickerConfig config) {
    this.context = context;
    DataSource dataSource = context.dataSource();
    FiringStore firings = new FiringStore(dataSource);
    TaskStore tasks = new TaskStore(dataSource);
    CalendarStore calendars = new CalendarStore(dataSource);
    this.config = config;
    this.producer = context.producer("ticker");
    this.emitter = new DueEmitter(producer, context.topics().due());
    this.notRun = new NotRunSender(producer, context.topics(), new OutboxStore(dataSource));
    this.elector =
        new LeaderElector(
            new LeaseStore(context.controlDataSource()),
            LeaseFence.TICKER,
            context.nodeId(),
            config,
            System::nanoTime);
    StoreTickerPort port =
        new StoreTickerPort(
            firings,
            emitter,
            new TaskSpecCache(tasks, 100_000, context.common().specCacheMaxBytes()),
            notRun);
    TickLoop loop =
        new TickLoop(
            context.clock(),
            elector::fence,
            port,
            planner(context, config, calendars),
            TickLimits.of(config),
            context.meters());
    this.loader =
        new WindowLoader(
            firings, context.clock(), elector::fence, loop, config.rescanEvery(), port::prefetch);
    this.switches = context.switches("ticker", Set.of(Switches.DISPATCH));
    this.backlog =
        new Backlog(
            new BacklogStore(dataSource), context.clock(), elector::fence, context.meters());
    this.reaper = reaper(context, config, tasks, elector, emitter, switches, producer);
    this.backfills =
        new BackfillCreator(
            dataSource,
            config.backfillRate(),
            config.backfillMaxInFlight(),
            elector::fence,
            System::nanoTime,
            context.clock(),
            producer,
            context.topics(),
            context.nodeId(),
            context.meters());
    this.retention = retentionThread(context, config, elector);
    registerLeaderMeters(context.meters(), elector);
    RecordParking parking = context.parking(producer, "ticker");
    this.scheduledConsumer = announcementReader(context, config, loop, elector, port, parking);
    FixedDelayChainer chainer =
        new FixedDelayChainer(
            EventDecoder.of(
                TaskCompletedEvent.class, "completion event", "ticker", context.meters()),
            tasks,
            firings,
            producer,
            context.topics().scheduled(),
            context.nodeId(),
            context.clock(),
            context.topics()::namespaceOfCompleted);
    this.chainConsumer =
        context.groupLoop(
            "ticker-chain",
            500,
            Subscription.matching(context.topics().completedPattern()),
            chainer::handle,
            // A completion handled twice creates nothing new (deterministic instance ids, one
            // SCHEDULED instance per chain): no need to wait for each commit.
            ConsumerLoop.CommitMode.ASYNC,
            parking);
    this.firing = new FiringThread(loop, this::rebuildAsNewLeader);
  }

  /** The firing plan, with the calendars it checks (all of them, read every 2 s). */
  private static FirePlanner planner(
      StageContext context, TickerConfig config, CalendarStore calendars) {
    return new FirePlanner(
        new FireTimes(),
        config.misfireThreshold(),
        new CalendarCheck(
            new CalendarDirectory(
                () -> calendars.all().stream().map(StoredCalendar::calendar).toList(),
                context.clock())));
  }

  /**
   * The reaper, with its chain repair: {@code AX_REAPER_UNCLAIMED_AFTER} is also how long a
   * FIXED_DELAY chain is left to the chainer, {@code AX_TICKER_MAX_BATCH} the tasks of each trigger
   * type a repair pass reads.
   */
  private static Reaper reaper(
      StageContext context,
      TickerConfig config,
      TaskStore tasks,
      LeaderElector elector,
      DueEmitter emitter,
      Switches switches,
      KafkaProducer<String, byte[]> producer) {
    DataSource dataSource = context.dataSource();
    EndedRunEmitter ended =
        new EndedRunEmitter(producer, context.topics(), new OutboxStore(dataSource));
    return new Reaper(
        new ReaperStore(dataSource),
        tasks,
        new ChainRepair(
            new ChainRepairStore(dataSource),
            tasks,
            config.reaperUnclaimedAfter(),
            config.maxBatch(),
            context.meters()),
        new ShardSettlement(
            dataSource,
            new ShardEvents(context.topics(), context.nodeId()),
            ended,
            config.maxBatch(),
            context.meters()),
        context.clock(),
        config,
        elector::fence,
        emitter,
        ended,
        switches::dispatchHold,
        elector::databaseSteadyFor,
        context.meters());
  }

  /**
   * The retention thread: {@code AX_RETENTION} and {@code AX_RETENTION_BATCH} for what a step
   * deletes, {@code AX_RETENTION_MAX_RATE} and {@code AX_RETENTION_BUSY_PERCENT} for its pace, the
   * reaper interval for its pause once caught up; working while {@code elector} leads.
   */
  private static RetentionThread retentionThread(
      StageContext context, TickerConfig config, LeaderElector elector) {
    return new RetentionThread(
        new Retention(
            new RetentionStore(context.dataSource()),
            context.clock(),
            config.retention(),
            config.retentionBatch(),
            context.meters()),
        new RetentionPace(
            config.retentionMaxRate(), config.retentionBusyPercent(), config.reaperInterval()),
        elector::fence,
        System::nanoTime,
        context.meters());
  }

  /** The gauges of this node's leadership and the count of its elections. */
  private static void registerLeaderMeters(MeterRegistry meters, LeaderElector elector) {
    meters.gauge("ax.ticker.leader", elector, e -> e.fence().isPresent() ? 1 : 0);
    meters.gauge("ax.ticker.epoch", elector, e -> Math.max(0, e.epoch()));
    FunctionCounter.builder("ax.ticker.leader.handovers", elector, LeaderElector::acquisitions)
        .description("times this node took the ticker lease, the first election included")
        .register(meters);
  }

  /**
   * The loop that reads announcements into {@code loop}'s wheel. Every ticker reads every
   * announcement partition, leader or not, so none is lost to a standby; only the leader acts on
   * them. Commits would mean nothing: a node that starts reads from the end, and a node that
   * becomes leader loads the window from the database first.
   */
  private static ConsumerLoop announcementReader(
      StageContext context,
      TickerConfig config,
      TickLoop loop,
      LeaderElector elector,
      StoreTickerPort port,
      RecordParking parking) {
    EventDecoder<TaskScheduledEvent> announcements =
        EventDecoder.of(TaskScheduledEvent.class, "announcement", "ticker", context.meters());
    return ConsumerLoop.everyPartitionFromEnd(
        "ax-ticker-scheduled",
        KafkaClients.groupless(
            context.kafka(), context.nodeId() + "-ticker", 1000, context.meters()),
        context.topics().scheduled(),
        new AnnouncementIntake(
                announcements,
                context.clock(),
                config.horizon(),
                loop,
                elector::fence,
                port::prefetch)
            ::accept,
        StageContext.OUTAGE_RETRY,
        parking,
        // Started while the broker was away: what was announced meanwhile is read from the
        // database by a full load.
        loop::requestFullReload,
        context.loops());
  }

  /**
   * Starts every part. The announcement reader's positions are fixed before the lease is tried: an
   * instance announced after that is read, one announced before is in the database when this node,
   * as leader, loads its first window. If the broker does not answer, the start goes on and the
   * reader takes its positions once it does, then asks for a full load: what was announced in
   * between is in the database.
   */
  public TickerStage start() {
    switches.start(); // before the first reaper pass: a switched-off group is not re-emitted
    scheduledConsumer.start();
    elector.start();
    firing.start();
    Duration reaperEvery = config.reaperInterval();
    threads.loadEvery(loader::load, config.loadInterval());
    threads.choreEvery("reaper", reaper::pass, reaperEvery, reaperEvery);
    threads.choreEvery("backlog", backlog::refresh, Duration.ZERO, reaperEvery);
    threads.choreEvery(
        "backfill", backfills::pass, BackfillCreator.PASS_EVERY, BackfillCreator.PASS_EVERY);
    retention.start();
    threads.choreEvery(
        "outbox resend", emitter::resendFailed, DueEmitter.RESEND_EVERY, DueEmitter.RESEND_EVERY);
    threads.choreEvery(
        "not-run events sent",
        notRun::deleteSent,
        DueEmitter.RESEND_EVERY,
        DueEmitter.RESEND_EVERY);
    chainConsumer.start();
    log.info(
        "Ticker {} started: horizon {} ms, load every {} ms",
        context.nodeId(),
        config.horizon().toMillis(),
        config.loadInterval().toMillis());
    return this;
  }

  /**
   * On {@code ax-ticker-fire}, when the loop starts leading at a new epoch: the wheel is rebuilt
   * from the database now, not at the next load interval, and the predecessor's dispatches adopted.
   */
  private void rebuildAsNewLeader() {
    threads.loadNow(loader::load);
    threads.choreNow("adoption", reaper::adoptPredecessorDispatches);
  }

  /** Stops everything without releasing the lease, as a crash would. For failover tests. */
  void halt() {
    elector.halt();
    threads.halt();
    stopThreads();
    producer.close(Duration.ZERO);
    log.info("Ticker {} halted", context.nodeId());
  }

  private void stopThreads() {
    firing.close(); // first: it hands work to the scheduler threads, which are shut next
    scheduledConsumer.close();
    chainConsumer.close();
    threads.close();
    retention.close();
    switches.close();
  }

  /** Ready once this node knows whether it leads or stands by (its lease heartbeat works). */
  @Override
  public Optional<String> problem() {
    return elector.roleUnknown();
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
