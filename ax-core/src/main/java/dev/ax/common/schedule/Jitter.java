package dev.ax.common.schedule;

import dev.ax.common.model.ScheduleRules;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.time.SaturatingMillis;
import java.nio.charset.StandardCharsets;

/**
 * Where a jittered firing is due: its slot moved by a pseudo-random amount within the task's
 * jitter, the same for the same (task, slot) on every node and every run, so the ticker that
 * creates a firing, {@code ax task next} that shows it, and a ticker that re-creates it after a
 * crash all agree. The instance keeps its slot id; only its due time moves.
 *
 * <p>The amount is in {@code [0, jitter]} (never before the slot), or in {@code [-jitter, jitter]}
 * when the task asks for symmetric jitter. It is a 64-bit mix (SplitMix64's finaliser) of the task
 * id's bytes and the slot, reduced to the range: not cryptographic, only spread. Stateless and
 * thread-safe.
 */
public final class Jitter {

  private Jitter() {}

  /**
   * The due time of {@code spec}'s firing for {@code slotMs}: jittered for the periodic triggers
   * (CRON, FIXED_RATE, FIXED_DELAY), the slot itself for the others.
   */
  public static long dueAtMs(TaskSpec spec, long slotMs) {
    Trigger trigger = spec.trigger();
    boolean periodic =
        trigger instanceof Trigger.Cron
            || trigger instanceof Trigger.FixedRate
            || trigger instanceof Trigger.FixedDelay;
    return periodic ? dueAtMs(spec.taskId(), slotMs, spec.rules()) : slotMs;
  }

  /** The due time of the firing of {@code taskId} for {@code slotMs} under {@code rules}. */
  public static long dueAtMs(String taskId, long slotMs, ScheduleRules rules) {
    long jitterMs = rules.jitter().toMillis();
    if (jitterMs == 0) {
      return slotMs;
    }
    return SaturatingMillis.atMs(
        slotMs, offsetMs(taskId, slotMs, jitterMs, rules.jitterSymmetric()));
  }

  /**
   * The offset, in {@code [0, jitterMs]} or, symmetric, {@code [-jitterMs, jitterMs]}.
   *
   * @param jitterMs at least 0
   */
  public static long offsetMs(String taskId, long slotMs, long jitterMs, boolean symmetric) {
    if (jitterMs < 0) {
      throw new IllegalArgumentException("jitterMs must not be negative: " + jitterMs);
    }
    if (jitterMs == 0) {
      return 0;
    }
    long hash = mix(fnv(taskId) ^ mix(slotMs));
    long span = symmetric ? 2 * jitterMs + 1 : jitterMs + 1;
    long offset = Math.floorMod(hash, span);
    return symmetric ? offset - jitterMs : offset;
  }

  /** FNV-1a over the UTF-8 bytes: stable across JVMs, unlike nothing else we need here. */
  private static long fnv(String text) {
    long hash = 0xcbf29ce484222325L;
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      hash ^= b & 0xff;
      hash *= 0x100000001b3L;
    }
    return hash;
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
