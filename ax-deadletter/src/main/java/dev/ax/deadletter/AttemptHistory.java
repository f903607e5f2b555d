package dev.ax.deadletter;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.AuditLog;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every attempt of an instance, read off its audit log: when it started (the claim), when and how
 * it ended, how long it took, by whom, and the error. Pure.
 */
final class AttemptHistory {

  /** One attempt; {@code endedAtMs} and {@code outcome} are null for a run that never ended. */
  record Attempt(
      int attempt,
      String dispatcher,
      long startedAtMs,
      Long endedAtMs,
      Long durationMs,
      InstanceStatus outcome,
      String error) {}

  private AttemptHistory() {}

  static List<Attempt> of(List<AuditLog.Transition> history) {
    Map<Integer, Attempt> byAttempt = new LinkedHashMap<>();
    for (AuditLog.Transition t : history) {
      if (t.to() == InstanceStatus.RUNNING) {
        byAttempt.put(
            t.attempt(), new Attempt(t.attempt(), t.actor(), t.atMs(), null, null, null, null));
      } else if (t.from() == InstanceStatus.RUNNING && byAttempt.containsKey(t.attempt())) {
        Attempt started = byAttempt.get(t.attempt());
        boolean takenBack = t.to() == InstanceStatus.DISPATCHED;
        byAttempt.put(
            t.attempt(),
            new Attempt(
                t.attempt(),
                started.dispatcher(),
                started.startedAtMs(),
                t.atMs(),
                t.atMs() - started.startedAtMs(),
                takenBack ? null : t.to(),
                takenBack ? "run taken back: " + t.reason() : t.reason()));
      }
    }
    return new ArrayList<>(byAttempt.values());
  }
}
