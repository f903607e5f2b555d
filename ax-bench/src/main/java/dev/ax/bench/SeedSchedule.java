package dev.ax.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The seeds' load test as a deterministic task set: of every 20 tasks, 8 fire on a second-level
 * cron schedule (periods 1 to 60 s), 9 on a minute-level one and 3 on an hour-level one (fewer than
 * 3 tasks: second-level first), each expression drawn from a small pool so that many tasks share
 * it, as they share a trigger group in the ticker. The same {@code tasks} and {@code seed} always
 * give the same set. Expressions are Quartz cron with seconds, in UTC. Immutable.
 */
final class SeedSchedule {

  /** How a task's schedule repeats. */
  enum ScheduleClass {
    SECOND,
    MINUTE,
    HOUR;

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** One task of the set: its index, its id and its cron expression. */
  record SeedTask(int index, String taskId, ScheduleClass scheduleClass, String expression) {}

  /** The seeds' own number of tasks. */
  static final int SEEDS_TASKS = 20_000;

  /** Second-level periods, in seconds: divisors of 60 and a few that are not (7, 45). */
  static final int[] SECOND_PERIODS = {1, 2, 3, 4, 5, 6, 7, 10, 12, 15, 20, 30, 45, 60};

  static final int[] MINUTE_PERIODS = {1, 2, 3, 5, 10, 15, 30};
  static final int[] HOUR_PERIODS = {1, 2, 3, 6, 12};

  private final List<SeedTask> tasks;

  private SeedSchedule(List<SeedTask> tasks) {
    this.tasks = Collections.unmodifiableList(tasks);
  }

  /**
   * {@code total} tasks in the seeds' proportions (8 : 9 : 3 of 20, rounded; at least one of each
   * class from 3 tasks on), ids {@code <idPrefix>-<index, 6 digits>}, expressions drawn by {@code
   * seed}.
   */
  static SeedSchedule of(int total, long seed, String idPrefix) {
    if (total < 1) {
      throw new IllegalArgumentException("total must be at least 1: " + total);
    }
    int seconds = (int) Math.round(total * 8 / 20.0);
    int minutes = (int) Math.round(total * 9 / 20.0);
    if (total >= 3) {
      seconds = Math.max(1, seconds);
      minutes = Math.max(1, Math.min(minutes, total - seconds - 1));
    } else {
      seconds = 1; // one second-level task, then one minute-level
      minutes = total - 1;
    }
    SplittableRandom random = new SplittableRandom(seed);
    List<String> secondPool = secondPool();
    List<String> minutePool = minutePool();
    List<String> hourPool = hourPool();
    List<SeedTask> tasks = new ArrayList<>(total);
    for (int i = 0; i < total; i++) {
      ScheduleClass kind =
          i < seconds
              ? ScheduleClass.SECOND
              : i < seconds + minutes ? ScheduleClass.MINUTE : ScheduleClass.HOUR;
      List<String> pool =
          switch (kind) {
            case SECOND -> secondPool;
            case MINUTE -> minutePool;
            case HOUR -> hourPool;
          };
      tasks.add(
          new SeedTask(
              i,
              String.format(Locale.ROOT, "%s-%06d", idPrefix, i),
              kind,
              pool.get(random.nextInt(pool.size()))));
    }
    return new SeedSchedule(tasks);
  }

  /** Every P of {@link #SECOND_PERIODS}, starting at up to 4 different seconds (fewer if P < 4). */
  static List<String> secondPool() {
    List<String> pool = new ArrayList<>();
    for (int period : SECOND_PERIODS) {
      for (int offset = 0; offset < Math.min(period, 4); offset++) {
        pool.add(period == 60 ? offset + " * * * * ?" : offset + "/" + period + " * * * * ?");
      }
    }
    return pool;
  }

  /** Every P minutes of {@link #MINUTE_PERIODS}, at second 0, 15, 30 or 45. */
  static List<String> minutePool() {
    List<String> pool = new ArrayList<>();
    for (int period : MINUTE_PERIODS) {
      for (int second = 0; second < 60; second += 15) {
        pool.add(second + " 0/" + period + " * * * ?");
      }
    }
    return pool;
  }

  /** Every P hours of {@link #HOUR_PERIODS}, at minute 0, 10, ... 50. */
  static List<String> hourPool() {
    List<String> pool = new ArrayList<>();
    for (int period : HOUR_PERIODS) {
      for (int minute = 0; minute < 60; minute += 10) {
        pool.add("0 " + minute + " 0/" + period + " * * ?");
      }
    }
    return pool;
  }

  List<SeedTask> tasks() {
    return tasks;
  }

  int size() {
    return tasks.size();
  }

  SeedTask task(int index) {
    return tasks.get(index);
  }

  /** Tasks per schedule class. */
  Map<ScheduleClass, Integer> counts() {
    Map<ScheduleClass, Integer> counts = new EnumMap<>(ScheduleClass.class);
    for (ScheduleClass kind : ScheduleClass.values()) {
      counts.put(kind, 0);
    }
    tasks.forEach(t -> counts.merge(t.scheduleClass(), 1, Integer::sum));
    return counts;
  }

  /** The distinct expressions the set uses: each one trigger group per due time in the ticker. */
  Set<String> expressions() {
    Set<String> distinct = new LinkedHashSet<>();
    tasks.forEach(t -> distinct.add(t.expression()));
    return distinct;
  }
}
