package dev.ax.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The arguments of one {@code printf} line built from parts, so that a report's table row and its
 * machine-read {@code KEY k=v ...} line take the same figures from one array and cannot drift
 * apart. Stateless; thread-safe.
 */
final class FormatArgs {

  private FormatArgs() {}

  /** {@code parts} in order, each {@code Object[]} part giving its elements in its place. */
  static Object[] of(Object... parts) {
    List<Object> args = new ArrayList<>();
    for (Object part : parts) {
      if (part instanceof Object[] many) {
        args.addAll(Arrays.asList(many));
      } else {
        args.add(part);
      }
    }
    return args.toArray();
  }
}
