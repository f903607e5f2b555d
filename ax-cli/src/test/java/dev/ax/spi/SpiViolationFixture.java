package dev.ax.spi;

import dev.ax.common.model.TaskSpec;

/** A deliberate layering violation, in test code only: the SPI using AX's model. */
public final class SpiViolationFixture {

  private SpiViolationFixture() {}

  /** Uses a class outside the JDK, which the SPI must never do. */
  public static String model() {
    return TaskSpec.class.getName();
  }
}
