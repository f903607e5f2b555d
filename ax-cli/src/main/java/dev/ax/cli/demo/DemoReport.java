package dev.ax.cli.demo;

import dev.ax.cli.text.TextTable;
import dev.ax.cli.text.TextTable.Column;
import dev.ax.cli.text.Times;
import dev.ax.common.contract.TaskCompletedEvent;
import java.io.PrintWriter;
import java.util.List;

/**
 * The one-shot part of {@code ax demo}'s report: a table of every planned run (one row per
 * completion event), the rejected commands with their reasons, what happened to the duplicate
 * create; and the demo's verdict. Stateless.
 */
public final class DemoReport {

  private static final String INDENT = "  ";

  private DemoReport() {}

  public static void print(PrintWriter out, DemoPlan plan, DemoOutcomes outcomes) {
    TextTable table =
        new TextTable(
            Column.left("taskId"),
            Column.left("executor").maxWidth(32),
            Column.left("status"),
            Column.left("expected"),
            Column.left("due"),
            Column.left("started"),
            Column.right("late ms"),
            Column.right("duration ms"),
            Column.left("error").maxWidth(48));
    for (DemoPlan.Step step : plan.runs()) {
      List<TaskCompletedEvent> events = outcomes.completionsOf(step.key());
      if (events.isEmpty()) {
        table.row(step.key(), step.executor(), "MISSING", step.expected(), "-", "-", "-", "-", "");
      }
      for (TaskCompletedEvent e : events) {
        table.row(
            step.key(),
            step.executor(),
            e.status(),
            step.expected(),
            Times.clock(e.dueAtMs()),
            Times.clock(e.startedAtMs()),
            e.lateMs(),
            e.durationMs(),
            e.error() == null ? "" : e.error());
      }
    }
    out.println();
    out.println("One-shot runs:");
    table.print(out, INDENT);
    out.println(
        INDENT + "(late = claimed - due; times are on the database clock, shown in local time)");

    out.println();
    out.println(
        "Rejected commands (from the rejected topic, reason in the ax.reject.reason header):");
    if (outcomes.rejections().isEmpty()) {
      out.println(INDENT + "(none)");
    }
    for (DemoOutcomes.Rejection rejection : outcomes.rejections()) {
      out.println(INDENT + rejection.key() + ": " + rejection.reason());
    }

    out.println();
    for (DemoPlan.Step duplicate : plan.duplicates()) {
      int runs = outcomes.completionsOf(duplicate.key()).size();
      String outcome =
          switch (runs) {
            case 0 -> "the task has not run";
            case 1 -> "ignored by ingest, the task ran once";
            default -> "the task ran " + runs + " times";
          };
      out.println("Duplicate create of " + duplicate.key() + ": " + outcome);
    }
    out.flush();
  }

  /** The last lines: passed, or each difference from the plan. */
  public static void printVerdict(PrintWriter out, List<String> differences) {
    out.println();
    if (differences.isEmpty()) {
      out.println(
          "Demo passed: every trigger type ran, the flow joined, the dead letter was replayed,"
              + " pause, resume and cancel took effect, nothing ran twice or late.");
    } else {
      out.println("Demo FAILED: " + differences.size() + " difference(s) from the plan:");
      differences.forEach(d -> out.println(INDENT + "- " + d));
    }
    out.flush();
  }
}
