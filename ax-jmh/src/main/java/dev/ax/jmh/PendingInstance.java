package dev.ax.jmh;

import java.util.concurrent.Delayed;
import java.util.concurrent.TimeUnit;

/**
 * One pending instance as a queue baseline holds it: its id, trigger group and due time, ordered by
 * due time and expiring against {@link FakeClock}. Subclasses add no field, so an element is as
 * small as a queue-based ticker's would be. Immutable.
 */
abstract class PendingInstance implements Delayed {

  /** How a queue baseline makes its element for one instance (a subclass's constructor). */
  @FunctionalInterface
  interface Factory<E extends PendingInstance> {
    E create(long instanceId, int groupId, long dueAtMs);
  }

  final long instanceId;
  final long dueAtMs;
  final int groupId;

  PendingInstance(long instanceId, int groupId, long dueAtMs) {
    this.instanceId = instanceId;
    this.groupId = groupId;
    this.dueAtMs = dueAtMs;
  }

  @Override
  public final long getDelay(TimeUnit unit) {
    return unit.convert(dueAtMs - FakeClock.nowMs, TimeUnit.MILLISECONDS);
  }

  /** Only ever compared with elements of the same queue, all of one subclass. */
  @Override
  public final int compareTo(Delayed other) {
    return Long.compare(dueAtMs, ((PendingInstance) other).dueAtMs);
  }
}
