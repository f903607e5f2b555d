package dev.ax.jmh;

import java.util.concurrent.Delayed;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * An instance as the queue of a {@code ScheduledThreadPoolExecutor} holds it: that queue (a binary
 * heap with an index per task) accepts any {@link RunnableScheduledFuture}, so the benchmark can
 * offer and poll it directly without the executor's threads.
 */
final class ScheduledInstance implements RunnableScheduledFuture<Void> {

  final long instanceId;
  final long dueAtMs;
  final int groupId;

  ScheduledInstance(long instanceId, int groupId, long dueAtMs) {
    this.instanceId = instanceId;
    this.groupId = groupId;
    this.dueAtMs = dueAtMs;
  }

  @Override
  public long getDelay(TimeUnit unit) {
    return unit.convert(dueAtMs - FakeClock.nowMs, TimeUnit.MILLISECONDS);
  }

  @Override
  public int compareTo(Delayed other) {
    return Long.compare(dueAtMs, ((ScheduledInstance) other).dueAtMs);
  }

  @Override
  public boolean isPeriodic() {
    return false;
  }

  @Override
  public void run() {}

  @Override
  public boolean cancel(boolean mayInterruptIfRunning) {
    return false;
  }

  @Override
  public boolean isCancelled() {
    return false;
  }

  @Override
  public boolean isDone() {
    return false;
  }

  @Override
  public Void get() {
    return null;
  }

  @Override
  public Void get(long timeout, TimeUnit unit) {
    return null;
  }
}
