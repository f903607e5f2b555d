package dev.ax.common.stage;

import dev.ax.common.contract.Echo;
import dev.ax.common.kafka.LoopWatcher;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.BiConsumer;

/**
 * What a process's consumer loops tell of themselves, as one readiness condition: every loop that
 * the broker refuses (it retries with back-off) or that died is a problem, named with its reason,
 * until a refused loop reads again. A dead loop never comes back, so its problem stays; besides, a
 * death is handed to the process's {@linkplain #onDeath death action} (a stage's {@code Main} ends
 * the process, exit {@link StageMain#EXIT_STAGE_FAILED}), so a stage cannot go on looking alive
 * while reading nothing.
 *
 * <p>Thread-safe: loops report from their own threads, the readiness thread reads.
 */
public final class LoopHealth implements LoopWatcher, Readiness.Check {

  /** Loop name → why it does not read; sorted so the probe's line is stable. */
  private final Map<String, String> problems = new ConcurrentSkipListMap<>();

  private volatile BiConsumer<String, Throwable> deathAction = (loop, cause) -> {};

  /**
   * Sets what a loop's death does beyond making the process not ready: called once per death, on
   * the dying loop's thread, with the loop's name and the cause; it must not wait for that loop (it
   * has not ended yet).
   */
  public void onDeath(BiConsumer<String, Throwable> action) {
    this.deathAction = action;
  }

  @Override
  public void refused(String loop, String reason) {
    problems.put(loop, reason);
  }

  @Override
  public void recovered(String loop) {
    problems.remove(loop);
  }

  @Override
  public void died(String loop, Throwable cause) {
    problems.put(loop, "stopped by an unexpected error: " + Echo.cut(cause.toString()));
    deathAction.accept(loop, cause);
  }

  /** Empty while every loop reads; else each loop that does not, with why. */
  @Override
  public Optional<String> problem() {
    if (problems.isEmpty()) {
      return Optional.empty();
    }
    StringBuilder line = new StringBuilder();
    problems.forEach(
        (loop, reason) ->
            line.append(line.length() == 0 ? "" : "; ").append(loop).append(": ").append(reason));
    return Optional.of(line.toString());
  }
}
