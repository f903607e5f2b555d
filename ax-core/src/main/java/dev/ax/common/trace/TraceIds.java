package dev.ax.common.trace;

import dev.ax.common.model.Trigger;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Trace ids as AX makes them: a W3C trace id (32 lower-case hex digits) for every trace AX starts,
 * one derived per run of a periodic task, and the W3C form of any trace id a producer gave. Derived
 * ids are hashes, so a replay or a retried transaction derives the same id again. Stateless.
 */
public final class TraceIds {

  /** A W3C trace id: 32 lower-case hex digits, not all zero. */
  static final Pattern W3C_TRACE_ID = Pattern.compile("(?!0{32})[0-9a-f]{32}");

  private static final HexFormat HEX = HexFormat.of();

  private TraceIds() {}

  /** A new random trace id, in W3C form. */
  public static String newTraceId() {
    UUID random = UUID.randomUUID();
    return HEX.toHexDigits(random.getMostSignificantBits())
        + HEX.toHexDigits(random.getLeastSignificantBits());
  }

  /**
   * The trace of one run of a periodic task: each run gets its own, so the logs of one run are not
   * mixed with every other run's; the task's own trace stays on the task as the runs' parent.
   */
  public static String forRun(String taskTraceId, String instanceId) {
    return hash(taskTraceId + '\n' + instanceId);
  }

  /**
   * The trace an instance of a task with {@code trigger} runs under: its own ({@link #forRun}) for
   * a periodic trigger, whose runs would otherwise all share one; else {@code traceId} itself (a
   * one-shot task's single run, a flow run's downstream, a RUN_NOW).
   */
  public static String ofInstance(Trigger trigger, String traceId, String instanceId) {
    boolean periodic =
        trigger instanceof Trigger.Cron
            || trigger instanceof Trigger.FixedRate
            || trigger instanceof Trigger.FixedDelay;
    return periodic ? forRun(traceId, instanceId) : traceId;
  }

  /**
   * {@code traceId} in W3C form: itself when it is one, else a hash of it, so a producer's own id
   * ("order-42") maps to the same W3C trace on every event and call.
   */
  public static String w3c(String traceId) {
    return W3C_TRACE_ID.matcher(traceId).matches() ? traceId : hash(traceId);
  }

  /** A W3C span (parent) id, 16 hex digits, derived from {@code seed}: never all zero. */
  static String spanId(String seed) {
    return HEX.toHexDigits(name(seed).getMostSignificantBits());
  }

  private static String hash(String text) {
    UUID name = name(text);
    return HEX.toHexDigits(name.getMostSignificantBits())
        + HEX.toHexDigits(name.getLeastSignificantBits());
  }

  /** A name-based UUID (MD5): its version nibble is 3, so no half of it is ever all zero. */
  private static UUID name(String text) {
    return UUID.nameUUIDFromBytes(text.getBytes(StandardCharsets.UTF_8));
  }
}
