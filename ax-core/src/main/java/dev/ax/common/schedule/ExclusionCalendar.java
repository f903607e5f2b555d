package dev.ax.common.schedule;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * A named exclusion calendar: the days on which the tasks that name it do not run. A day is
 * excluded when it is one of {@code dates}, lies within one of {@code ranges} (both ends
 * inclusive), or falls on one of {@code weekly}'s days. Days are the calendar's own: an instant is
 * excluded when its local date <em>in the calendar's zone</em> is, so {@code 2026-12-25} in {@code
 * Europe/Berlin} excludes 2026-12-24T23:00Z..2026-12-25T23:00Z (a day of 23 or 25 hours on a DST
 * change, as the zone has it), whatever the task's own zone.
 *
 * <p>Bounded: at most {@link #MAX_ENTRIES} dates and ranges together, a description of at most
 * {@link #MAX_DESCRIPTION_CHARS}. A {@link Lookup} answers {@link #excludes} with a hash lookup and
 * one floor lookup in the ranges, merged once into disjoint ones. Immutable and thread-safe.
 *
 * @param name the calendar's name: {@link #NAME} as its namespace's users write it, or stored
 *     {@code <namespace>~<name>}
 * @param zone where its days begin and end
 * @param dates single excluded days, sorted, no repeats
 * @param ranges excluded periods, in the order given
 * @param weekly excluded days of every week
 * @param description for people; null: none
 */
public record ExclusionCalendar(
    String name,
    ZoneId zone,
    List<LocalDate> dates,
    List<DateRange> ranges,
    Set<DayOfWeek> weekly,
    String description) {

  /** A calendar's name as its users write it; the same as a task's {@code calendars} entries. */
  public static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

  /** A name as stored: in a namespace other than the default one, {@code <namespace>~<name>}. */
  public static final Pattern STORED_NAME =
      Pattern.compile("(?:[a-z][a-z0-9-]{0,30}~)?[A-Za-z0-9._-]{1,64}");

  /** The most dates and ranges (together) one calendar holds. */
  public static final int MAX_ENTRIES = 1_000;

  public static final int MAX_DESCRIPTION_CHARS = 500;

  /** An excluded period of whole days, both ends inclusive. */
  public record DateRange(LocalDate from, LocalDate to) {
    public DateRange {
      Objects.requireNonNull(from, "from");
      Objects.requireNonNull(to, "to");
      if (to.isBefore(from)) {
        throw new IllegalArgumentException("a range ends before it starts: " + from + ".." + to);
      }
    }

    public boolean contains(LocalDate day) {
      return !day.isBefore(from) && !day.isAfter(to);
    }

    @Override
    public String toString() {
      return from + ".." + to;
    }
  }

  public ExclusionCalendar {
    Objects.requireNonNull(name, "name");
    if (!STORED_NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "a calendar name must match " + NAME.pattern() + ": " + name);
    }
    Objects.requireNonNull(zone, "zone");
    dates = List.copyOf(new TreeSet<>(dates == null ? List.of() : dates));
    ranges = ranges == null ? List.of() : List.copyOf(ranges);
    weekly = weekly == null || weekly.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(weekly));
    if (dates.size() + ranges.size() > MAX_ENTRIES) {
      throw new IllegalArgumentException(
          "a calendar holds at most "
              + MAX_ENTRIES
              + " dates and ranges: "
              + (dates.size() + ranges.size()));
    }
    if (description != null && description.length() > MAX_DESCRIPTION_CHARS) {
      throw new IllegalArgumentException(
          "a calendar's description is at most " + MAX_DESCRIPTION_CHARS + " characters");
    }
  }

  /** Whether a firing at {@code at} falls on an excluded day of this calendar. */
  public boolean excludes(Instant at) {
    return excludes(localDate(at));
  }

  /**
   * Whether {@code day} (a date in this calendar's zone) is excluded. Builds the lookups each call;
   * a caller that asks often holds a {@link Lookup}.
   */
  public boolean excludes(LocalDate day) {
    return new Lookup(this).excludes(day);
  }

  /** The date of {@code at} in this calendar's zone: the day {@link #excludes} looks at. */
  public LocalDate localDate(Instant at) {
    return at.atZone(zone).toLocalDate();
  }

  /**
   * Why a firing at {@code at} does not run, as its audit row says: {@code calendar <name>:
   * excluded <local date>}, the name as its namespace's users write it; empty when it runs.
   */
  public Optional<String> exclusion(Instant at) {
    return new Lookup(this).exclusion(at);
  }

  /** The name without its namespace. */
  public String localName() {
    return name.substring(name.indexOf('~') + 1);
  }

  /** This calendar under another name (a namespace's qualified one). */
  public ExclusionCalendar withName(String newName) {
    return new ExclusionCalendar(newName, zone, dates, ranges, weekly, description);
  }

  /** Weekly days in week order. */
  public List<DayOfWeek> weeklyInOrder() {
    List<DayOfWeek> days = new ArrayList<>(weekly);
    days.sort(Comparator.naturalOrder());
    return days;
  }

  /** {@link #excludes} over a calendar's ranges merged once; for callers that ask many times. */
  public static final class Lookup {
    private final ExclusionCalendar calendar;
    private final Set<LocalDate> dates;
    private final NavigableMap<LocalDate, LocalDate> ranges;

    public Lookup(ExclusionCalendar calendar) {
      this.calendar = calendar;
      this.dates = Set.copyOf(calendar.dates());
      this.ranges = merge(calendar.ranges());
    }

    public ExclusionCalendar calendar() {
      return calendar;
    }

    /** {@link ExclusionCalendar#exclusion}, with the lookups built once. */
    public Optional<String> exclusion(Instant at) {
      LocalDate day = calendar.localDate(at);
      return excludes(day)
          ? Optional.of("calendar " + calendar.localName() + ": excluded " + day)
          : Optional.empty();
    }

    /** Whether {@code day}, a date in the calendar's zone, is excluded. */
    public boolean excludes(LocalDate day) {
      if (calendar.weekly().contains(day.getDayOfWeek()) || dates.contains(day)) {
        return true;
      }
      Map.Entry<LocalDate, LocalDate> range = ranges.floorEntry(day);
      return range != null && !day.isAfter(range.getValue());
    }

    static NavigableMap<LocalDate, LocalDate> merge(List<DateRange> ranges) {
      List<DateRange> sorted = new ArrayList<>(ranges);
      sorted.sort(Comparator.comparing(DateRange::from));
      TreeMap<LocalDate, LocalDate> merged = new TreeMap<>();
      LocalDate from = null;
      LocalDate to = null;
      for (DateRange range : sorted) {
        if (from != null && !range.from().isAfter(to.plusDays(1))) {
          to = range.to().isAfter(to) ? range.to() : to;
          continue;
        }
        if (from != null) {
          merged.put(from, to);
        }
        from = range.from();
        to = range.to();
      }
      if (from != null) {
        merged.put(from, to);
      }
      return merged;
    }
  }
}
