package dev.ax.common.wheel;

/** What {@link TimingWheel#add} did with an instance. Every outcome is expected; none throws. */
public enum AddResult {
  /** Held; it fires exactly once, at the first advance to a time at or after its due time. */
  ADDED,
  /**
   * Not held: its due time is at or before the wheel's current time, so no later advance would be
   * "on time" for it. The caller fires it now.
   */
  ALREADY_DUE,
  /**
   * Not changed: the id is already pending (held, or due and not yet handed to the expiry handler).
   * The first add's group and due time stay.
   */
  DUPLICATE,
  /**
   * Not held: the wheel already holds {@code maxPending} instances. The database still has the
   * instance; a later load brings it back.
   */
  FULL
}
