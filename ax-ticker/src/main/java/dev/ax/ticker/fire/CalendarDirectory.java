package dev.ax.ticker.fire;

import dev.ax.common.schedule.ExclusionCalendar;
import dev.ax.common.time.Clock;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ticker's copy of the exclusion calendars, by stored name: every calendar (at most {@code
 * CalendarStore.MAX_CALENDARS}) read at once, on the thread that finds its copy older than {@link
 * #REFRESH_MS}, or older than {@link #MISS_REFRESH_MS} when asked for a name it does not hold (a
 * calendar created just before its task: ingest found it, so a miss means the copy is behind). A
 * failed read keeps the last copy and is logged once until a read succeeds. Only firings of tasks
 * that name calendars ask, so a ticker with none reads nothing.
 *
 * <p>Threading: the firing thread only (it is the one caller); not thread-safe.
 */
public final class CalendarDirectory {

  private static final Logger log = LoggerFactory.getLogger(CalendarDirectory.class);

  /** How old a copy may grow: a changed calendar applies within this. */
  public static final long REFRESH_MS = 2_000;

  /** How old a copy may be when a name is not in it before it is read again. */
  public static final long MISS_REFRESH_MS = 250;

  /** Missing names warned about, remembered so each is warned once (cleared when full). */
  static final int MAX_WARNED = 1_000;

  private final Supplier<List<ExclusionCalendar>> store;
  private final Clock clock;
  private Map<String, ExclusionCalendar.Lookup> byName = Map.of();
  private long readAtMs = Long.MIN_VALUE;
  private boolean failing;
  private final Set<String> warnedMissing = new HashSet<>();

  /**
   * @param store reads every calendar ({@code CalendarStore.all}, as models)
   */
  public CalendarDirectory(Supplier<List<ExclusionCalendar>> store, Clock clock) {
    this.store = store;
    this.clock = clock;
  }

  /**
   * Calendar {@code name} (stored), empty when it does not exist; a task naming one that does not
   * exist (deleted in a race with the task's creation) is warned about once per name.
   */
  Optional<ExclusionCalendar.Lookup> lookup(String name) {
    long nowMs = clock.millis();
    if (readAtMs == Long.MIN_VALUE || nowMs - readAtMs >= REFRESH_MS) {
      refresh(nowMs);
    }
    ExclusionCalendar.Lookup lookup = byName.get(name);
    if (lookup == null && nowMs - readAtMs >= MISS_REFRESH_MS) {
      refresh(nowMs);
      lookup = byName.get(name);
    }
    if (lookup == null && !failing && warnedMissing.add(name)) {
      if (warnedMissing.size() > MAX_WARNED) {
        warnedMissing.clear();
      }
      log.warn(
          "A task names calendar {}, which does not exist: it excludes nothing until it is"
              + " created again",
          name);
    }
    return Optional.ofNullable(lookup);
  }

  private void refresh(long nowMs) {
    readAtMs = nowMs;
    try {
      Map<String, ExclusionCalendar.Lookup> read = new HashMap<>();
      for (ExclusionCalendar calendar : store.get()) {
        read.put(calendar.name(), new ExclusionCalendar.Lookup(calendar));
      }
      byName = Map.copyOf(read);
      if (failing) {
        log.info("Calendars read again: {}", byName.size());
      }
      failing = false;
    } catch (RuntimeException e) {
      if (!failing) {
        log.warn(
            "Could not read the calendars; the last copy ({}) applies: {}",
            byName.size(),
            e.toString());
      }
      failing = true;
    }
  }
}
