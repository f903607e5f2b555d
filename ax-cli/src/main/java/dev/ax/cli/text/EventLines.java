package dev.ax.cli.text;

import dev.ax.common.contract.TaskCompletedEvent;

/**
 * One line per event, the same in {@code ax up} and {@code ax demo}: what ended how, when it was
 * due, how late it was claimed, how long it ran. Stateless.
 */
public final class EventLines {

  /** Task ids up to this long line up; longer ones push the rest of their line right. */
  private static final int TASK_ID_WIDTH = 16;

  private EventLines() {}

  public static String completed(TaskCompletedEvent e) {
    StringBuilder line =
        new StringBuilder()
            .append(String.format("%-8s %-" + TASK_ID_WIDTH + "s", e.status(), e.taskId()))
            .append(" due ")
            .append(Times.clock(e.dueAtMs()))
            .append(", late ")
            .append(e.lateMs())
            .append(" ms, ran ")
            .append(e.durationMs())
            .append(" ms");
    if (e.attempt() > 1) {
      line.append(", attempt ").append(e.attempt());
    }
    if (e.error() != null) {
      line.append(": ").append(e.error());
    }
    return line.toString();
  }

  public static String rejected(String key, String reason) {
    return String.format("%-8s %s: %s", "REJECTED", key == null ? "(no key)" : key, reason);
  }
}
