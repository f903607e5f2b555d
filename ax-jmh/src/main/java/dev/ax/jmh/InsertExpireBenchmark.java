package dev.ax.jmh;

import dev.ax.common.wheel.AddResult;
import dev.ax.common.wheel.ExpiryHandler;
import dev.ax.common.wheel.TimingWheel;
import java.util.HashSet;
import java.util.PriorityQueue;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Insert plus expire at 1,000,000 pending, the ticker's steady state: each invocation inserts
 * {@link Workload#OPS_PER_STEP} instances, moves time {@link Workload#STEP_MS} on and takes out
 * everything due (about as many). One operation is one insert and one expiry.
 *
 * <p>The timing wheel (10 ms ticks, 512 slots, duplicate detection included) against a {@link
 * DelayQueue}, the same with a {@code HashSet<Long>} for duplicate detection (what the wheel does
 * too), a plain {@link PriorityQueue}, and the queue of a {@link ScheduledThreadPoolExecutor}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@OperationsPerInvocation(Workload.OPS_PER_STEP)
public class InsertExpireBenchmark {

  private static final long SEED = 42;

  /**
   * Pending count, time and the trial's setup and checks, shared by every structure's state. JMH
   * runs the {@code @Setup} and {@code @TearDown} methods declared here for the wheel's state; a
   * queue baseline's are called by its {@link QueueChoice}.
   */
  public abstract static class Base {
    final Workload workload = new Workload(SEED);
    long nowMs = Workload.START_MS;
    long nextId;
    long expired;

    @Setup(Level.Trial)
    public void setUp() {
      fill();
    }

    void fill() {
      FakeClock.nowMs = nowMs;
      long[] delays = Workload.initialDelaysMs(Workload.PENDING, SEED + 1);
      for (long delayMs : delays) {
        insertNext(delayMs);
      }
    }

    /** One step of the workload: {@link Workload#OPS_PER_STEP} inserts, then time moves on. */
    void insertStep() {
      for (int i = 0; i < Workload.OPS_PER_STEP; i++) {
        insertNext(workload.nextInsertDelayMs());
      }
      nowMs += Workload.STEP_MS;
    }

    /** Inserts the next instance id, in its group, due {@code delayMs} from now. */
    private void insertNext(long delayMs) {
      long id = nextId++;
      insert(id, Workload.groupOf(id), nowMs + delayMs);
    }

    abstract void insert(long instanceId, int groupId, long dueAtMs);

    abstract int size();

    @TearDown(Level.Trial)
    public void tearDown() {
      checkPending();
    }

    /** The pending count must stay near the target, or the comparison is of something else. */
    void checkPending() {
      int size = size();
      if (size < Workload.PENDING * 8L / 10 || size > Workload.PENDING * 12L / 10) {
        throw new IllegalStateException("pending drifted to " + size);
      }
    }
  }

  @State(Scope.Thread)
  public static class WheelState extends Base {
    final TimingWheel wheel = new TimingWheel(4 * Workload.PENDING, nowMs);
    final ExpiryHandler handler =
        (groupId, dueAtMs, ids, count) -> {
          for (int i = 0; i < count; i++) {
            expired += ids[i];
          }
        };

    @Override
    void insert(long instanceId, int groupId, long dueAtMs) {
      if (wheel.add(instanceId, groupId, dueAtMs) != AddResult.ADDED) {
        throw new IllegalStateException("not added: " + instanceId);
      }
    }

    @Override
    int size() {
      return wheel.size();
    }
  }

  /**
   * A queue baseline's state: {@code queue} holds one element per pending instance, made by {@code
   * element}.
   */
  public abstract static class QueueState<E extends PendingInstance, Q extends Queue<? super E>>
      extends Base {
    final Q queue;
    private final PendingInstance.Factory<E> element;

    QueueState(Q queue, PendingInstance.Factory<E> element) {
      this.queue = queue;
      this.element = element;
    }

    @Override
    void insert(long instanceId, int groupId, long dueAtMs) {
      queue.offer(element.create(instanceId, groupId, dueAtMs));
    }

    @Override
    int size() {
      return queue.size();
    }

    /**
     * Moves {@link FakeClock} to now and polls until the queue hands out nothing: for the queues
     * that hand out only due elements (a {@link DelayQueue}, the executor's); a queue that hands
     * out any head overrides it.
     */
    void pollDue() {
      FakeClock.nowMs = nowMs;
      Object due;
      while ((due = queue.poll()) != null) {
        expire((PendingInstance) due);
      }
    }

    void expire(PendingInstance due) {
      expired += due.instanceId;
    }

    /**
     * One invocation of a queue baseline's benchmark: a step of inserts, then out with everything
     * due; returns the checksum of the expired ids, for JMH to consume.
     */
    long step() {
      insertStep();
      pollDue();
      return expired;
    }
  }

  public static class DelayQueueState
      extends QueueState<DelayedInstance, DelayQueue<DelayedInstance>> {
    public DelayQueueState() {
      super(new DelayQueue<>(), DelayedInstance::new);
    }
  }

  /** The delay queue with a set of the pending ids beside it, as the wheel detects duplicates. */
  public static class IndexedDelayQueueState extends DelayQueueState {
    final Set<Long> pendingIds = new HashSet<>();

    @Override
    void insert(long instanceId, int groupId, long dueAtMs) {
      if (pendingIds.add(instanceId)) {
        super.insert(instanceId, groupId, dueAtMs);
      }
    }

    @Override
    void expire(PendingInstance due) {
      pendingIds.remove(due.instanceId);
      super.expire(due);
    }
  }

  public static class PriorityQueueState
      extends QueueState<DelayedInstance, PriorityQueue<DelayedInstance>> {
    public PriorityQueueState() {
      super(new PriorityQueue<>(), DelayedInstance::new);
    }

    /** Takes out the head while it is due: a priority queue hands out any head, due or not. */
    @Override
    void pollDue() {
      while (!queue.isEmpty() && queue.peek().dueAtMs <= nowMs) {
        expire(queue.poll());
      }
    }
  }

  public static class ExecutorQueueState
      extends QueueState<ScheduledInstance, BlockingQueue<Runnable>> {
    // No task is ever submitted, so the executor starts no thread; only its queue is used.
    final ScheduledThreadPoolExecutor executor;

    public ExecutorQueueState() {
      this(new ScheduledThreadPoolExecutor(1));
    }

    private ExecutorQueueState(ScheduledThreadPoolExecutor executor) {
      super(executor.getQueue(), ScheduledInstance::new);
      this.executor = executor;
    }

    /**
     * Called through the base's {@code @TearDown}; the check first, as shutdown drains the queue.
     */
    @Override
    public void tearDown() {
      super.tearDown();
      executor.shutdownNow();
    }
  }

  /** Adds straight to the wheel, not through {@code insert}: the fill's result check stays out. */
  @Benchmark
  public long timingWheel(WheelState state) {
    for (int i = 0; i < Workload.OPS_PER_STEP; i++) {
      long id = state.nextId++;
      state.wheel.add(id, Workload.groupOf(id), state.nowMs + state.workload.nextInsertDelayMs());
    }
    state.nowMs += Workload.STEP_MS;
    state.wheel.advanceTo(state.nowMs, state.handler);
    return state.expired;
  }

  /**
   * One of the queue baselines, by name: JMH runs {@link #queue} once per value and prints it
   * beside the score, so the baselines differ in one parameter, not in a benchmark each.
   */
  @State(Scope.Thread)
  public static class QueueChoice {
    @Param({
      "delayQueue",
      "delayQueueWithDuplicateIndex",
      "priorityQueue",
      "scheduledExecutorQueue"
    })
    public String queue;

    QueueState<?, ?> state;

    @Setup(Level.Trial)
    public void setUp() {
      state =
          switch (queue) {
            case "delayQueue" -> new DelayQueueState();
            case "delayQueueWithDuplicateIndex" -> new IndexedDelayQueueState();
            case "priorityQueue" -> new PriorityQueueState();
            case "scheduledExecutorQueue" -> new ExecutorQueueState();
            default -> throw new IllegalArgumentException("no queue baseline named " + queue);
          };
      state.setUp();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      state.tearDown();
    }
  }

  @Benchmark
  public long queue(QueueChoice choice) {
    return choice.state.step();
  }
}
