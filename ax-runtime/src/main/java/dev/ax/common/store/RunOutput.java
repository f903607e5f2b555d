package dev.ax.common.store;

/**
 * What one attempt said, as {@code ax_run_output} keeps it: already masked and bounded by the
 * dispatcher that ran it. Immutable.
 *
 * @param startedAtMs when the run started (the outcome knows only when it finished)
 * @param text the masked excerpt, at most {@link #MAX_CHARS} characters, never null
 */
public record RunOutput(long startedAtMs, String text) {

  /** The most characters of a run's output stored; the rest is cut with {@link #CUT_MARKER}. */
  public static final int MAX_CHARS = 4096;

  /** Ends an excerpt whose output was longer than what is stored. */
  public static final String CUT_MARKER = "\n… (cut)";

  public RunOutput {
    if (text == null) {
      throw new IllegalArgumentException("a run's output text must not be null");
    }
    if (text.length() > MAX_CHARS) {
      throw new IllegalArgumentException(
          "a run's output is at most " + MAX_CHARS + " characters: " + text.length());
    }
  }

  /**
   * {@code text} cut to at most {@code maxChars} characters (the marker included), never splitting
   * a surrogate pair; unchanged when it fits.
   */
  public static String bounded(String text, int maxChars) {
    if (text == null || text.length() <= maxChars) {
      return text;
    }
    int end = Math.max(0, maxChars - CUT_MARKER.length());
    if (end > 0 && Character.isHighSurrogate(text.charAt(end - 1))) {
      end--;
    }
    return text.substring(0, end) + CUT_MARKER;
  }
}
