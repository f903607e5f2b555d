package dev.ax.jmh;

import java.util.concurrent.Delayed;
import java.util.concurrent.TimeUnit;

/**
 * What a {@code DelayQueue} or {@code PriorityQueue} ticker would hold: one object per instance.
 */
final class DelayedInstance implements Delayed {

  final long instanceId;
  final long dueAtMs;
  final int groupId;

  DelayedInstance(long instanceId, int groupId, long dueAtMs) {
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
    return Long.compare(dueAtMs, ((DelayedInstance) other).dueAtMs);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof DelayedInstance that && instanceId == that.instanceId;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(instanceId);
  }
}
