package dev.ax.ingest;

import dev.ax.common.model.Namespace;
import dev.ax.common.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The calendars that exist, as ingest checks a CREATE's or UPDATE's {@code calendars} against them.
 * A name seen to exist is trusted for {@link #TRUST_MS}; a name not known is looked up by key
 * ({@code CalendarStore.existing}), and one found missing is remembered as missing for {@link
 * #MISSING_MS}, so a flood of commands naming a calendar that does not exist costs one lookup per
 * name and second, and a calendar created just before its task is found at once. Both memories are
 * bounded ({@link #MAX_REMEMBERED}; cleared when full).
 *
 * <p>A calendar deleted while trusted here can still be named by a task for up to {@link
 * #TRUST_MS}; such a task's firings are not excluded (the ticker warns). Deleting a calendar a live
 * task names is refused, so only a task accepted in that window meets this.
 *
 * <p>Not thread-safe: ingest's consumer thread only.
 */
final class KnownCalendars {

  static final long TRUST_MS = 5_000;

  static final long MISSING_MS = 1_000;

  static final int MAX_REMEMBERED = 10_000;

  private final Function<Collection<String>, Set<String>> existing;
  private final Clock clock;
  private final Map<String, Long> existsSinceMs = new HashMap<>();
  private final Map<String, Long> missingSinceMs = new HashMap<>();

  /**
   * @param existing those of the names (stored) that exist ({@code CalendarStore.existing})
   */
  KnownCalendars(Function<Collection<String>, Set<String>> existing, Clock clock) {
    this.existing = existing;
    this.clock = clock;
  }

  /** Those of {@code names} (stored) that do not exist, in their order. */
  List<String> missing(List<String> names) {
    long nowMs = clock.millis();
    List<String> unsure = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    for (String name : names) {
      Long exists = existsSinceMs.get(name);
      Long absent = missingSinceMs.get(name);
      if (exists != null && nowMs - exists < TRUST_MS) {
        continue;
      }
      if (absent != null && nowMs - absent < MISSING_MS) {
        missing.add(name);
      } else {
        unsure.add(name);
      }
    }
    if (unsure.isEmpty()) {
      return missing;
    }
    Set<String> found = new HashSet<>(existing.apply(unsure));
    if (existsSinceMs.size() + missingSinceMs.size() + unsure.size() > MAX_REMEMBERED) {
      existsSinceMs.clear();
      missingSinceMs.clear();
    }
    for (String name : unsure) {
      if (found.contains(name)) {
        existsSinceMs.put(name, nowMs);
        missingSinceMs.remove(name);
      } else {
        missingSinceMs.put(name, nowMs);
        missing.add(name);
      }
    }
    List<String> ordered = new ArrayList<>(names);
    ordered.retainAll(missing);
    return ordered;
  }

  /** The refusal of a command naming {@code missing} calendars (stored names). */
  static String reason(List<String> missing) {
    List<String> shown = missing.stream().map(Namespace::localId).toList();
    String first = shown.get(0);
    return (shown.size() == 1
            ? "calendars names " + first + ", which does not exist"
            : "calendars names " + shown + ", which do not exist")
        + ": an operator creates it with 'ax calendar create "
        + first
        + " --zone <zone> ...'";
  }
}
