package dev.ax.common.model;

/**
 * How an instance's attempts count against its retry budget, and the reasons that cite the counts.
 * Every run is an attempt (the attempt number is part of a run's identity and goes up on every
 * claim; a claim released unstarted at a dispatcher's stop is undone), but only a failed one
 * (FAILED or TIMEOUT) uses up the budget: a run the reaper took back because its dispatcher died
 * does not. Take-backs have a bound of their own ({@code AX_MAX_TAKEBACKS}), so a task that kills
 * its dispatcher every time still ends DEAD. Pure.
 */
public final class RetryBudget {

  private RetryBudget() {}

  /**
   * The failed attempts of the current budget.
   *
   * @param attemptsInBudget runs started since the budget began (the attempt number minus the retry
   *     base), each of which either failed or was taken back, or is the current one
   * @param takenBack runs of the budget the reaper took back
   * @param currentFailed whether the current run (the last of {@code attemptsInBudget}) failed
   */
  public static int failed(int attemptsInBudget, int takenBack, boolean currentFailed) {
    return Math.max(0, attemptsInBudget - takenBack - (currentFailed ? 0 : 1));
  }

  /** "{@code n} attempt(s) failed, {@code m} retries allowed". */
  public static String counts(int failed, int maxRetries) {
    return failed
        + " attempt(s) failed, "
        + maxRetries
        + " retr"
        + (maxRetries == 1 ? "y" : "ies")
        + " allowed";
  }

  /** Why a failed attempt is the last: more failures than the policy retries. */
  public static String exhausted(int failed, int maxRetries) {
    return "retries exhausted: " + counts(failed, maxRetries);
  }

  /**
   * Why an instance whose dispatcher died again is not taken back once more.
   *
   * @param takenBack take-backs of the budget so far (the bound was reached)
   * @param attempt the attempt whose dispatcher died
   * @param maxRetries the task's policy, or null when the task is missing
   */
  public static String takenBackTooOften(
      int takenBack, int maxTakebacks, int attempt, int failed, Integer maxRetries) {
    String failures =
        maxRetries == null ? failed + " attempt(s) failed" : counts(failed, maxRetries);
    if (takenBack == 0) {
      return "its dispatcher died during attempt "
          + attempt
          + " and runs are not taken back (at most 0 times); "
          + failures;
    }
    return "taken back "
        + takenBack
        + " time(s) after its dispatcher died (at most "
        + maxTakebacks
        + "), and its dispatcher died again during attempt "
        + attempt
        + "; "
        + failures;
  }
}
