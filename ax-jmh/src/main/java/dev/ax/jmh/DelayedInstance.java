package dev.ax.jmh;

/**
 * What a {@code DelayQueue} or {@code PriorityQueue} ticker would hold: one object per instance,
 * equal by instance id.
 */
final class DelayedInstance extends PendingInstance {

  DelayedInstance(long instanceId, int groupId, long dueAtMs) {
    super(instanceId, groupId, dueAtMs);
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
