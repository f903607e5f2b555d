package dev.ax.common.store;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What a batch of conditional outcome writes came to (the dispatcher's outcomes, the reaper's end
 * of runs taken back too often): the outcomes recorded, and those lost because their run was no
 * longer the writer's to end (taken back, claimed again, renewed, or recorded before). Every
 * outcome given is in exactly one of the two lists, each in the order given. An outcome is recorded
 * when its run ({@code instanceId#attempt}) won, so two outcomes of one run in a batch share the
 * answer.
 *
 * <p>Immutable; thread-safe.
 */
public final class OutcomeRecording {

  private final List<Outcome> recorded;
  private final List<Outcome> lost;
  private final Set<String> recordedRuns;
  private final List<OutboxMessage> settledFirings;

  private OutcomeRecording(
      List<Outcome> recorded,
      List<Outcome> lost,
      Set<String> recordedRuns,
      List<OutboxMessage> settledFirings) {
    this.recorded = List.copyOf(recorded);
    this.lost = List.copyOf(lost);
    this.recordedRuns = Set.copyOf(recordedRuns);
    this.settledFirings = List.copyOf(settledFirings);
  }

  /**
   * This recording, with the events of the sharded firings its outcomes settled ({@link
   * ShardFirings}), put in the outbox in the same transaction.
   */
  public OutcomeRecording withSettledFirings(List<OutboxMessage> events) {
    return new OutcomeRecording(recorded, lost, recordedRuns, events);
  }

  /** The events of the sharded firings this recording settled, to be sent; usually none. */
  public List<OutboxMessage> settledFirings() {
    return settledFirings;
  }

  /** Sorts {@code outcomes} by whether their run is one of {@code wonRuns}. */
  public static OutcomeRecording of(List<Outcome> outcomes, Set<String> wonRuns) {
    List<Outcome> recorded = new ArrayList<>();
    List<Outcome> lost = new ArrayList<>();
    Set<String> recordedRuns = new HashSet<>();
    for (Outcome outcome : outcomes) {
      if (wonRuns.contains(runOf(outcome))) {
        recorded.add(outcome);
        recordedRuns.add(runOf(outcome));
      } else {
        lost.add(outcome);
      }
    }
    return new OutcomeRecording(recorded, lost, recordedRuns, List.of());
  }

  /** Nothing given, nothing recorded. */
  public static OutcomeRecording none() {
    return new OutcomeRecording(List.of(), List.of(), Set.of(), List.of());
  }

  /** The outcomes recorded, in the order given. */
  public List<Outcome> recorded() {
    return recorded;
  }

  /** The outcomes not recorded (their run was taken back), in the order given. */
  public List<Outcome> lost() {
    return lost;
  }

  /** True when {@code outcome}, one of those given, was recorded. */
  public boolean isRecorded(Outcome outcome) {
    return recordedRuns.contains(runOf(outcome));
  }

  /** The key a run is matched by: its instance and attempt. */
  public static String runOf(Outcome outcome) {
    return outcome.instanceId() + "#" + outcome.attempt();
  }

  @Override
  public String toString() {
    return "OutcomeRecording[recorded=" + recorded + ", lost=" + lost + "]";
  }
}
