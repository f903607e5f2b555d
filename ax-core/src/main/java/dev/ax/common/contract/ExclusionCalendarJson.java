package dev.ax.common.contract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.common.schedule.ExclusionCalendar;
import dev.ax.common.schedule.ExclusionCalendar.DateRange;
import java.time.DateTimeException;
import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * An exclusion calendar as JSON (docs/contract/calendar.schema.json), as operators write it and
 * {@code ax_calendar.spec_json} stores it:
 *
 * <pre>{@code
 * {"zone": "Europe/Berlin", "dates": ["2026-12-25"],
 *  "ranges": [{"from": "2026-12-24", "to": "2026-12-31"}], "weekly": ["SAT", "SUN"],
 *  "description": "office closed"}
 * }</pre>
 *
 * {@code zone} is required, every other field optional; {@code weekly} takes {@code MON}..{@code
 * SUN} or the full English names, in any case; a {@code name} field, when present, must be the
 * calendar's. Unknown fields are refused (an operator's typo should not silently exclude nothing).
 * The reader throws nothing but {@link IllegalArgumentException}, with the reason. Stateless.
 */
public final class ExclusionCalendarJson {

  private static final Set<String> FIELDS =
      Set.of("name", "zone", "dates", "ranges", "weekly", "description");

  private ExclusionCalendarJson() {}

  /**
   * Reads calendar {@code name} from {@code node}.
   *
   * @throws IllegalArgumentException with the reason when anything is wrong
   */
  public static ExclusionCalendar read(String name, JsonNode node) {
    if (node == null || !node.isObject()) {
      throw new IllegalArgumentException("a calendar is a JSON object");
    }
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String field = it.next();
      if (!FIELDS.contains(field)) {
        throw new IllegalArgumentException(
            "a calendar has no field " + Echo.of(field) + " (fields: " + FIELDS + ")");
      }
    }
    if (node.hasNonNull("name") && !node.get("name").asText().equals(name)) {
      throw new IllegalArgumentException(
          "the file names calendar " + Echo.of(node.get("name").asText()) + ", not " + name);
    }
    if (!node.path("zone").isTextual() || node.get("zone").asText().isBlank()) {
      throw new IllegalArgumentException("a calendar needs its zone, e.g. \"Europe/Berlin\"");
    }
    return new ExclusionCalendar(
        name,
        zone(node.get("zone").asText()),
        dates(node.get("dates")),
        ranges(node.get("ranges")),
        weekly(node.get("weekly")),
        node.hasNonNull("description") ? node.get("description").asText() : null);
  }

  /** The calendar's JSON, without its name (the store keeps that in its key). */
  public static ObjectNode write(ExclusionCalendar calendar) {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("zone", calendar.zone().getId());
    ArrayNode dates = node.putArray("dates");
    calendar.dates().forEach(d -> dates.add(d.toString()));
    ArrayNode ranges = node.putArray("ranges");
    calendar
        .ranges()
        .forEach(
            r -> ranges.addObject().put("from", r.from().toString()).put("to", r.to().toString()));
    ArrayNode weekly = node.putArray("weekly");
    calendar.weeklyInOrder().forEach(d -> weekly.add(shortName(d)));
    if (calendar.description() != null) {
      node.put("description", calendar.description());
    }
    return node;
  }

  /** The calendar's JSON with its name as its namespace's users write it, as shown. */
  public static ObjectNode writeShown(ExclusionCalendar calendar) {
    ObjectNode node = JsonNodeFactory.instance.objectNode().put("name", calendar.localName());
    node.setAll(write(calendar));
    return node;
  }

  /** {@code MON}..{@code SUN}. */
  public static String shortName(DayOfWeek day) {
    return day.name().substring(0, 3);
  }

  /**
   * A day of the week from {@code MON}..{@code SUN} or its full name, in any case.
   *
   * @throws IllegalArgumentException naming the accepted values
   */
  public static DayOfWeek day(String text) {
    String upper = text.strip().toUpperCase(Locale.ROOT);
    for (DayOfWeek day : DayOfWeek.values()) {
      if (day.name().equals(upper) || shortName(day).equals(upper)) {
        return day;
      }
    }
    throw new IllegalArgumentException(
        "unknown day " + Echo.of(text) + ": use MON, TUE, WED, THU, FRI, SAT or SUN");
  }

  /**
   * A date {@code yyyy-MM-dd}.
   *
   * @throws IllegalArgumentException with the text and the expected form
   */
  public static LocalDate date(String text) {
    try {
      return LocalDate.parse(text.strip());
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("not a date (yyyy-MM-dd): " + Echo.of(text));
    }
  }

  /**
   * A range {@code from..to}, both inclusive, as the CLI's {@code --range} takes it.
   *
   * @throws IllegalArgumentException when a date is bad or the range ends before it starts
   */
  public static DateRange range(String text) {
    int dots = text.indexOf("..");
    if (dots < 0) {
      throw new IllegalArgumentException(
          "a range is from..to (yyyy-MM-dd..yyyy-MM-dd): " + Echo.of(text));
    }
    return range(date(text.substring(0, dots)), date(text.substring(dots + 2)));
  }

  /**
   * An IANA zone.
   *
   * @throws IllegalArgumentException when it is not one
   */
  public static ZoneId zone(String text) {
    try {
      return ZoneId.of(text.strip());
    } catch (DateTimeException e) {
      throw new IllegalArgumentException("unknown time zone: " + Echo.of(text));
    }
  }

  private static DateRange range(LocalDate from, LocalDate to) {
    if (to.isBefore(from)) {
      throw new IllegalArgumentException("range " + from + ".." + to + " ends before it starts");
    }
    return new DateRange(from, to);
  }

  private static List<LocalDate> dates(JsonNode array) {
    List<LocalDate> dates = new ArrayList<>();
    for (JsonNode item : elements(array, "dates")) {
      if (!item.isTextual()) {
        throw new IllegalArgumentException("dates holds a non-date: " + Echo.cut(item.toString()));
      }
      dates.add(date(item.asText()));
    }
    return dates;
  }

  private static List<DateRange> ranges(JsonNode array) {
    List<DateRange> ranges = new ArrayList<>();
    for (JsonNode item : elements(array, "ranges")) {
      if (item.isTextual()) {
        ranges.add(range(item.asText()));
      } else if (item.isObject() && item.path("from").isTextual() && item.path("to").isTextual()) {
        ranges.add(range(date(item.get("from").asText()), date(item.get("to").asText())));
      } else {
        throw new IllegalArgumentException(
            "a range is {\"from\": \"yyyy-MM-dd\", \"to\": \"yyyy-MM-dd\"}: "
                + Echo.cut(item.toString()));
      }
    }
    return ranges;
  }

  private static Set<DayOfWeek> weekly(JsonNode array) {
    Set<DayOfWeek> days = EnumSet.noneOf(DayOfWeek.class);
    for (JsonNode item : elements(array, "weekly")) {
      if (!item.isTextual()) {
        throw new IllegalArgumentException("weekly holds a non-day: " + Echo.cut(item.toString()));
      }
      days.add(day(item.asText()));
    }
    return days;
  }

  private static List<JsonNode> elements(JsonNode array, String field) {
    if (array == null || array.isNull()) {
      return List.of();
    }
    if (!array.isArray()) {
      throw new IllegalArgumentException(field + " must be an array");
    }
    if (array.size() > ExclusionCalendar.MAX_ENTRIES) {
      throw new IllegalArgumentException(
          field + " holds at most " + ExclusionCalendar.MAX_ENTRIES + " entries: " + array.size());
    }
    List<JsonNode> items = new ArrayList<>(array.size());
    array.forEach(items::add);
    return items;
  }
}
