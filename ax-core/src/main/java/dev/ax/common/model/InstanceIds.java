package dev.ax.common.model;

/**
 * Instance ids are deterministic: {@code taskId@fireTimeMillis}, so two tickers that fire the same
 * slot produce the same id and the database keeps one row.
 */
public final class InstanceIds {

  private InstanceIds() {}

  public static String of(String taskId, long fireTimeMs) {
    return taskId + "@" + fireTimeMs;
  }

  /** The longest instance id the schema holds. */
  public static final int MAX_LENGTH = 160;

  /** True for {@code taskId@<digits>}: an instance of one of the trigger's slots ({@link #of}). */
  public static boolean isSlotId(String instanceId) {
    int at = instanceId.lastIndexOf('@');
    if (at < 0 || at == instanceId.length() - 1 || instanceId.length() - at > 20) {
      return false;
    }
    for (int i = at + 1; i < instanceId.length(); i++) {
      if (!Character.isDigit(instanceId.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  /** What marks a backfill's firing in its id: {@code taskId@backfill:<slotMillis>}. */
  public static final String BACKFILL_MARK = "@backfill:";

  /**
   * The firing a backfill creates for slot {@code slotMs} of task {@code taskId}: {@code
   * taskId@backfill:<slotMillis>}. Deterministic, so a backfill run twice, resumed after a crash,
   * or overlapping another of the same task creates each slot's firing once. It is no slot id
   * ({@link #isSlotId}): it extends no chain. At most 10 + 20 characters longer than the task id,
   * within {@link #MAX_LENGTH} for every task id the schema holds (128).
   */
  public static String backfillOf(String taskId, long slotMs) {
    return taskId + BACKFILL_MARK + slotMs;
  }

  /** True for {@code taskId@backfill:<digits>}: a backfill's firing ({@link #backfillOf}). */
  public static boolean isBackfillId(String instanceId) {
    int mark = instanceId.lastIndexOf(BACKFILL_MARK);
    int digits = mark + BACKFILL_MARK.length();
    if (mark < 0 || digits == instanceId.length() || instanceId.length() - digits > 19) {
      return false;
    }
    for (int i = digits; i < instanceId.length(); i++) {
      if (!Character.isDigit(instanceId.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  /** The slot (fire time, epoch ms) of a slot instance's id; see {@link #isSlotId}. */
  public static long slotOf(String slotInstanceId) {
    return Long.parseLong(slotInstanceId.substring(slotInstanceId.lastIndexOf('@') + 1));
  }

  /**
   * The instance of dependency task {@code taskId} in flow run {@code flowRunId}: {@code
   * taskId@flowRunId}, or, when that would not fit, {@code taskId@h} and a hash of the flow run id.
   * Deterministic, so a repeated trigger cannot make a second instance.
   */
  public static String inFlow(String taskId, String flowRunId) {
    String plain = taskId + "@" + flowRunId;
    if (plain.length() <= MAX_LENGTH) {
      return plain;
    }
    try {
      byte[] digest =
          java.security.MessageDigest.getInstance("SHA-256")
              .digest(flowRunId.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return taskId + "@h" + java.util.HexFormat.of().formatHex(digest, 0, 12);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  /** The flow run an instance belongs to: its stored one, or its own id when it started one. */
  public static String flowRunOf(String instanceId, String storedFlowRunId) {
    return storedFlowRunId != null ? storedFlowRunId : instanceId;
  }

  /**
   * The idempotency key executors receive for every attempt of one instance: the instance id. A
   * dispatcher that dies after the side effect and before recording it makes the instance run again
   * as a new attempt; the receiver must see the same key then.
   */
  public static String idempotencyKey(String instanceId) {
    return instanceId;
  }
}
