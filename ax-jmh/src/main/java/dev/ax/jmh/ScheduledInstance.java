package dev.ax.jmh;

import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * An instance as the queue of a {@code ScheduledThreadPoolExecutor} holds it: that queue (a binary
 * heap with an index per task) accepts any {@link RunnableScheduledFuture}, so the benchmark can
 * offer and poll it directly without the executor's threads.
 */
final class ScheduledInstance extends PendingInstance implements RunnableScheduledFuture<Void> {

  ScheduledInstance(long instanceId, int groupId, long dueAtMs) {
    super(instanceId, groupId, dueAtMs);
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
