package dev.ax.common.layering;

import dev.ax.dispatcher.DispatcherMain;
import dev.ax.embedded.EmbeddedDatabase;

/**
 * A deliberate layering violation, in test code only: the shared core using a stage and the
 * embedded infrastructure.
 */
public final class CommonViolationFixture {

  private CommonViolationFixture() {}

  /** Uses a stage's class, which the shared core must never do. */
  public static String stage() {
    return DispatcherMain.class.getName();
  }

  /** Uses the embedded database, which only the launcher's local mode may. */
  public static String embedded() {
    return EmbeddedDatabase.class.getName();
  }
}
