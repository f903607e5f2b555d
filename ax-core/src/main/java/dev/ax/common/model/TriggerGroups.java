package dev.ax.common.model;

import dev.ax.common.time.SaturatingMillis;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The trigger group of a task: tasks whose triggers fire at the same instants share one key, so the
 * ticker's wheel can hold them as one entry per due time and fire them as one batch.
 *
 * <p>A key is at most {@link #MAX_KEY_LENGTH} characters, the width of {@code
 * ax_task.trigger_group}. A readable key that would be longer (a long but valid Quartz expression)
 * is replaced by its hash form {@code <TYPE>#sha256:<64 hex digits>} of the readable key: still
 * deterministic, so equal triggers keep sharing a group, and distinct from every readable key (no
 * readable key contains {@code #sha256:} right after the type). Stateless and thread-safe.
 */
public final class TriggerGroups {

  /** The width of {@code ax_task.trigger_group} (migration V3). */
  public static final int MAX_KEY_LENGTH = 512;

  private TriggerGroups() {}

  public static String keyOf(Trigger trigger) {
    String readable = readableKeyOf(trigger);
    if (readable.length() <= MAX_KEY_LENGTH) {
      return readable;
    }
    return trigger.type().name() + "#sha256:" + sha256Hex(readable);
  }

  private static String readableKeyOf(Trigger trigger) {
    if (trigger instanceof Trigger.Cron cron) {
      return "CRON|" + cron.expression().trim() + "|" + cron.zone().getId();
    }
    if (trigger instanceof Trigger.FixedRate rate) {
      // Saturating: Duration.toMillis throws for intervals beyond ~292 million years.
      return "FIXED_RATE|"
          + SaturatingMillis.toMillis(rate.interval())
          + "|"
          + (rate.startAt() == null ? "" : SaturatingMillis.epochMillis(rate.startAt()));
    }
    return trigger.type().name();
  }

  private static String sha256Hex(String text) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError("every Java platform has SHA-256", e);
    }
  }
}
