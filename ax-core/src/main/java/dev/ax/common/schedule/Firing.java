package dev.ax.common.schedule;

import dev.ax.common.model.InstanceIds;
import java.time.Instant;
import java.util.Objects;

/**
 * One instance to create: the slot it is keyed by and when it is due.
 *
 * @param fireTime the slot; the instance id is {@code taskId@fireTimeMillis} ({@link #instanceId})
 * @param dueAt when to run it: the slot itself when on time, "now" when it is a late catch-up
 * @param kind why it fires
 */
public record Firing(Instant fireTime, Instant dueAt, Kind kind) {

  public enum Kind {
    /** The slot is just due (not older than the misfire threshold): fires as scheduled. */
    ON_TIME,
    /** FIRE_ALL: a missed slot, fired late, now. */
    LATE,
    /** FIRE_ONCE_NOW: one firing, now, for all missed slots, keyed by the latest of them. */
    COALESCED
  }

  public Firing {
    Objects.requireNonNull(fireTime, "fireTime");
    Objects.requireNonNull(dueAt, "dueAt");
    Objects.requireNonNull(kind, "kind");
  }

  public String instanceId(String taskId) {
    return InstanceIds.of(taskId, fireTime.toEpochMilli());
  }
}
