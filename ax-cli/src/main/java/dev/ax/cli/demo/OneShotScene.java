package dev.ax.cli.demo;

import dev.ax.common.contract.TaskCompletedEvent;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The {@link DemoPlan}'s one-shot tasks: in-process and HTTP runs, a timeout, a duplicate create
 * and two invalid commands, held against {@link DemoOutcomes}. Complete a second after everything
 * expected arrived (a duplicate run would show by then). Not thread-safe.
 */
public final class OneShotScene extends DemoScene {

  private static final Duration SETTLE = Duration.ofSeconds(1);

  private final DemoPlan plan;
  private final DemoOutcomes outcomes;
  private final Set<String> keys;
  private long arrivedAtMs;
  private boolean settled;

  public OneShotScene(DemoPlan plan) {
    this.plan = plan;
    this.outcomes = new DemoOutcomes(plan);
    this.keys = plan.steps().stream().map(DemoPlan.Step::key).collect(Collectors.toSet());
  }

  @Override
  public String title() {
    return "one-shot tasks: in-process, HTTP, a timeout, a duplicate create, invalid commands";
  }

  @Override
  public List<DemoPlan.Step> commands() {
    return plan.steps();
  }

  @Override
  public boolean owns(String taskId) {
    return keys.contains(taskId);
  }

  @Override
  public void completed(TaskCompletedEvent event) {
    outcomes.completed(event);
  }

  @Override
  public void rejected(String key, String reason) {
    outcomes.rejected(key, reason);
  }

  @Override
  public void advance(DemoActions actions, long nowMs) {
    if (arrivedAtMs == 0 && outcomes.allArrived()) {
      arrivedAtMs = nowMs;
    }
    settled = arrivedAtMs > 0 && nowMs >= arrivedAtMs + SETTLE.toMillis();
  }

  @Override
  protected boolean complete() {
    return settled;
  }

  @Override
  protected List<String> check() {
    return outcomes.differences();
  }

  @Override
  public String outcome() {
    return plan.runs().size()
        + " one-shot tasks ended as planned, the duplicate create was ignored, "
        + plan.rejections().size()
        + " invalid commands were rejected with a reason";
  }

  /** The table of runs, the rejections and the duplicate. */
  public void printDetails(PrintWriter out) {
    DemoReport.print(out, plan, outcomes);
  }
}
