package dev.ax.cli.command;

import dev.ax.cli.CliKeys;
import dev.ax.common.config.AxConfig;
import java.util.Map;

/**
 * Who runs an operator command ({@code ax dlq replay}, {@code ax dlq discard}, {@code ax switch},
 * {@code ax task cancel} ...), as its audit records and {@code ax_operator_log} name them: {@code
 * ax --operator <name>}, else {@code AX_OPERATOR}, else the operating-system user.
 *
 * <p>The flag is held for one {@code ax} run (set while its command line is parsed, cleared when a
 * new command line is built); one run at a time per JVM, on its main thread.
 */
public final class Operator {

  /** The longest name an audit row holds. */
  static final int MAX_LENGTH = 128;

  private static volatile String fromFlag;

  private Operator() {}

  /** {@code ax --operator}'s value for this run; null clears it. */
  public static void setFromFlag(String name) {
    if (name != null
        && (name.isBlank()
            || name.length() > MAX_LENGTH
            || name.chars().anyMatch(Character::isISOControl))) {
      throw new IllegalArgumentException(
          "--operator must be one line of at most " + MAX_LENGTH + " characters");
    }
    fromFlag = name;
  }

  static String name() {
    String flag = fromFlag;
    if (flag != null) {
      return flag;
    }
    String configured = AxConfig.fromEnvironment(Map.of()).get(CliKeys.OPERATOR);
    if (!configured.isBlank()) {
      return configured.length() > MAX_LENGTH ? configured.substring(0, MAX_LENGTH) : configured;
    }
    return System.getProperty("user.name", "unknown");
  }
}
