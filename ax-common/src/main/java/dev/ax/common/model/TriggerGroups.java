package dev.ax.common.model;

/**
 * The trigger group of a task: tasks whose triggers fire at the same instants share one key, so the
 * ticker's wheel can hold them as one entry per due time and fire them as one batch.
 */
public final class TriggerGroups {

  private TriggerGroups() {}

  public static String keyOf(Trigger trigger) {
    if (trigger instanceof Trigger.Cron cron) {
      return "CRON|" + cron.expression().trim() + "|" + cron.zone().getId();
    }
    if (trigger instanceof Trigger.FixedRate rate) {
      return "FIXED_RATE|"
          + rate.interval().toMillis()
          + "|"
          + (rate.startAt() == null ? "" : rate.startAt().toEpochMilli());
    }
    return trigger.type().name();
  }
}
