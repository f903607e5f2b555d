package dev.ax.common.model;

/**
 * What a periodic task does with a firing that falls due while its previous run is still in flight
 * (DISPATCHED, RUNNING or RETRYING). The rules live in {@code dev.ax.ticker.fire.OverlapRules}.
 *
 * <p>New tasks that name neither {@code overlap} nor the older {@code concurrent} / {@code
 * concurrencyPolicy} get {@link #SKIP}. A spec that names only the older fields keeps their
 * meaning: {@code concurrent: true} (their default) is {@link #ALLOW_ALL}; {@code concurrent:
 * false} with {@code SKIP} is {@link #SKIP}, with {@code DELAY} is {@link #BUFFER_ONE} (one firing
 * waits, as DELAY's one held firing did).
 */
public enum OverlapPolicy {
  /** The firing does not run: recorded SKIPPED (reason "overlap"). The default for new tasks. */
  SKIP,
  /** The firing waits for the run in flight; a second one while one waits is SKIPPED. */
  BUFFER_ONE,
  /** Firings wait, oldest first, at most {@link #MAX_BUFFERED}; one more is SKIPPED. */
  BUFFER_ALL,
  /** The run in flight is cancelled (its attempt interrupted), then this firing runs. */
  CANCEL_OTHER,
  /** Runs overlap: the firing runs whatever is in flight. */
  ALLOW_ALL;

  public static final OverlapPolicy DEFAULT = SKIP;

  /** The most firings of one task that wait under {@link #BUFFER_ALL}. */
  public static final int MAX_BUFFERED = 100;

  /** How many firings of one task may wait for the run in flight. */
  public int bufferLimit() {
    return switch (this) {
      case BUFFER_ONE, CANCEL_OTHER -> 1;
      case BUFFER_ALL -> MAX_BUFFERED;
      case SKIP, ALLOW_ALL -> 0;
    };
  }

  /** The policy the older fields {@code concurrent} and {@code concurrencyPolicy} stand for. */
  public static OverlapPolicy ofLegacy(boolean concurrent, ConcurrencyPolicy policy) {
    if (concurrent) {
      return ALLOW_ALL;
    }
    return policy == ConcurrencyPolicy.DELAY ? BUFFER_ONE : SKIP;
  }
}
