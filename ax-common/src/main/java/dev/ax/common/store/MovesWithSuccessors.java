package dev.ax.common.store;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Several {@link BatchMove}s and the successor instances their won rows owe, in one transaction:
 * what the ticker's firing needs (SCHEDULED → DISPATCHED and → SKIPPED, and the next firings of
 * periodic tasks). Either every move and every owed successor commits, or nothing does, so a crash
 * cannot leave a moved row without its successor; a row that did not move (a lost race, a lapsed
 * fence) owes none. With no successors to create, the last move's packet carries the commit (see
 * {@link Transaction}): one round trip for a single move of up to {@link Sql#MAX_IN_LIST} keys.
 *
 * <p>The moves say what SQL runs; this class only runs them together. Stateless; thread-safe.
 */
public final class MovesWithSuccessors {

  /** The rows keyed by {@code keys} to move with {@code move}. */
  public record Step(List<?> keys, BatchMove<DueInstance> move) {}

  /**
   * @param movedByStep the rows each step won, in the order of the steps
   * @param created the numeric key of each successor created, by instance id
   */
  public record Result(List<List<DueInstance>> movedByStep, Map<String, Long> created) {}

  private MovesWithSuccessors() {}

  /**
   * Runs {@code steps} in order over the rows keyed in {@code keyColumn}, then creates SCHEDULED
   * the successors in {@code successorsByInstanceId} of every row that moved, as {@code actor}.
   *
   * @param what names the transaction in a failure
   */
  public static Result run(
      DataSource dataSource,
      String what,
      String keyColumn,
      List<Step> steps,
      Map<String, List<NewInstance>> successorsByInstanceId,
      String actor,
      long nowMs) {
    if (steps.isEmpty()) {
      return new Result(List.of(), Map.of());
    }
    boolean mayCreate = !successorsByInstanceId.isEmpty();
    return Transactions.inPacketTransaction(
        dataSource,
        what,
        transaction -> {
          List<List<DueInstance>> movedByStep = new ArrayList<>(steps.size());
          for (int i = 0; i < steps.size(); i++) {
            boolean commits = !mayCreate && i == steps.size() - 1;
            Step step = steps.get(i);
            movedByStep.add(
                BatchMover.moveIn(
                    transaction, keyColumn, step.keys(), step.move(), nowMs, commits));
          }
          List<NewInstance> successors = new ArrayList<>();
          for (List<DueInstance> moved : movedByStep) {
            for (DueInstance row : moved) {
              successors.addAll(successorsByInstanceId.getOrDefault(row.instanceId(), List.of()));
            }
          }
          Map<String, Long> created =
              successors.isEmpty()
                  ? Map.of()
                  : InstanceInserts.insert(transaction.connection(), successors, actor, nowMs);
          return new Result(movedByStep, created);
        });
  }
}
