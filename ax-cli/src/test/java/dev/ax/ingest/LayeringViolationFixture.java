package dev.ax.ingest;

import dev.ax.ticker.TickerMain;

/**
 * A deliberate layering violation, in test code only: ingest using the ticker. {@code LayeringTest}
 * checks that its rules refuse it.
 */
public final class LayeringViolationFixture {

  private LayeringViolationFixture() {}

  /** Uses another stage's class, which a stage must never do. */
  public static String otherStage() {
    return TickerMain.class.getName();
  }
}
