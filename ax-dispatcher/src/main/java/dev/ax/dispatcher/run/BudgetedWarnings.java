package dev.ax.dispatcher.run;

import dev.ax.common.logging.LogBudget;
import org.slf4j.Logger;

/**
 * WARN lines of one kind whose rate an input decides (failing tasks, a broker that refuses a
 * record), logged within a standard {@link LogBudget}: the first line allowed after some were held
 * back is preceded by one that says how many and where they are all counted.
 *
 * <p>Thread-safe (the budget is).
 */
final class BudgetedWarnings {

  private final Logger log;
  private final LogBudget budget;

  /**
   * @param what the lines' subject, plural, as in "3 more {@code failed attempt(s)} not logged"
   * @param countedIn where every one of them can still be found: a metric
   */
  BudgetedWarnings(Logger log, String what, String countedIn) {
    this.log = log;
    this.budget = LogBudget.standard(what, countedIn);
  }

  /** Logs {@code format} with {@code args} at WARN, unless the budget holds it back. */
  void warn(String format, Object... args) {
    LogBudget.Permit permit = budget.take();
    if (!permit.allowed()) {
      return;
    }
    budget.heldBack(permit).ifPresent(log::warn);
    log.warn(format, args);
  }
}
