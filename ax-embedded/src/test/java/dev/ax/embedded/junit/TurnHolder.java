package dev.ax.embedded.junit;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A process that takes a turn on the machine ({@code args[0]} the file, {@code args[1]} shared or
 * exclusive), prints {@value #HOLDING}, and releases it when its standard input ends.
 */
public final class TurnHolder {

  static final String HOLDING = "HOLDING";

  private TurnHolder() {}

  public static void main(String[] args) throws IOException {
    try (MachineTurns.Turn turn =
        MachineTurns.take(Path.of(args[0]), args[1].equals("exclusive"))) {
      System.out.println(HOLDING);
      System.out.flush();
      while (System.in.read() >= 0) {
        // hold until the parent closes our input
      }
    }
  }
}
