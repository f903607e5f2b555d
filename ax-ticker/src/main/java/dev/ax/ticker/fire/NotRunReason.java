package dev.ax.ticker.fire;

import java.util.Locale;

/**
 * Why a firing did not run, as a small fixed set: the tag of {@code ax.firings.not.run} and the
 * first word of the reason in its audit row and completion event. Derived from the reason text,
 * which starts with the category and a colon.
 */
public enum NotRunReason {
  /** Its task's previous run was in flight (SKIP), or the buffer was full; or it was cancelled. */
  OVERLAP,
  /** Later than the task's catch-up window allows (an outage, a long pause). */
  MISSED,
  /** Dropped by the task's misfire policy (SKIP, or FIRE_ALL beyond maxFireAll). */
  MISFIRE,
  /** In a period one of the task's calendars excludes. */
  CALENDAR,
  /** Due while its task was paused. */
  PAUSED,
  /** Anything else (an older reason text). */
  OTHER;

  /** The category {@code reason} starts with. */
  public static NotRunReason of(String reason) {
    int colon = reason == null ? -1 : reason.indexOf(':');
    if (colon <= 0) {
      return OTHER;
    }
    String head = reason.substring(0, colon).trim().toUpperCase(Locale.ROOT);
    for (NotRunReason category : values()) {
      if (category.name().equals(head)) {
        return category;
      }
    }
    return head.startsWith("CALENDAR") ? CALENDAR : OTHER;
  }

  /** The tag value: lower case. */
  public String tag() {
    return name().toLowerCase(Locale.ROOT);
  }
}
