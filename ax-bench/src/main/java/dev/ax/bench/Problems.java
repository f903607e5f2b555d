package dev.ax.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * What makes a bench round a failure, as counted: each count above zero becomes a line such as
 * {@code "3 task(s) never completed"}. Not thread-safe: built and read by the one thread judging
 * the round.
 */
final class Problems {

  private final List<String> found = new ArrayList<>();

  /** Notes {@code count} {@code what} when {@code count} is above zero. */
  Problems count(long count, String what) {
    if (count > 0) {
      found.add(count + " " + what);
    }
    return this;
  }

  /** The problems noted, in order; empty when there is none. */
  List<String> list() {
    return List.copyOf(found);
  }
}
