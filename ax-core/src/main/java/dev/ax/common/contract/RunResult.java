package dev.ax.common.contract;

/**
 * The completion event's {@code result}: a summary of what the attempt said, for a consumer that
 * wants to see it without asking AX. Absent from the event when the run said nothing (no output).
 * Immutable; thread-safe.
 *
 * @param summary the first {@link #MAX_SUMMARY_CHARS} characters of the run's stored output, its
 *     secret-looking values masked
 * @param httpStatus the response status of an HTTP run, null for other executors (and for an HTTP
 *     call that got no response)
 */
public record RunResult(String summary, Integer httpStatus) {

  /** The most characters of a run's output a completion event carries. */
  public static final int MAX_SUMMARY_CHARS = 256;

  /** The summary of {@code output} (null when there is none). */
  public static RunResult of(String output, Integer httpStatus) {
    if (output == null) {
      return null;
    }
    String summary =
        output.length() <= MAX_SUMMARY_CHARS ? output : output.substring(0, MAX_SUMMARY_CHARS);
    if (summary.length() == MAX_SUMMARY_CHARS
        && Character.isHighSurrogate(summary.charAt(MAX_SUMMARY_CHARS - 1))) {
      summary = summary.substring(0, MAX_SUMMARY_CHARS - 1); // not half a character
    }
    return new RunResult(summary, httpStatus);
  }
}
