package dev.ax.common.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ax.common.contract.ExclusionCalendarJson;
import dev.ax.common.schedule.ExclusionCalendar.DateRange;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Exclusion calendars: days in the calendar's zone, the three kinds of entry, and their JSON. */
class ExclusionCalendarTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

  private static ExclusionCalendar calendar(
      ZoneId zone, List<LocalDate> dates, List<DateRange> ranges, Set<DayOfWeek> weekly) {
    return new ExclusionCalendar("holidays", zone, dates, ranges, weekly, null);
  }

  @Test
  void aDateIsExcludedFromMidnightToMidnightInTheCalendarsZone() {
    ExclusionCalendar christmas =
        calendar(BERLIN, List.of(LocalDate.parse("2026-12-25")), List.of(), Set.of());
    // Berlin is UTC+1 in December: its 25th is 2026-12-24T23:00Z .. 2026-12-25T23:00Z.
    assertThat(christmas.excludes(Instant.parse("2026-12-24T22:59:59.999Z"))).isFalse();
    assertThat(christmas.excludes(Instant.parse("2026-12-24T23:00:00Z"))).isTrue();
    assertThat(christmas.excludes(Instant.parse("2026-12-25T22:59:59.999Z"))).isTrue();
    assertThat(christmas.excludes(Instant.parse("2026-12-25T23:00:00Z"))).isFalse();
    assertThat(christmas.exclusion(Instant.parse("2026-12-25T12:00:00Z")))
        .contains("calendar holidays: excluded 2026-12-25");
  }

  @Test
  void aZoneWhereTheUtcDateDiffersExcludesByItsOwnDate() {
    ZoneId auckland = ZoneId.of("Pacific/Auckland"); // UTC+13 in January
    ExclusionCalendar newYear =
        calendar(auckland, List.of(LocalDate.parse("2027-01-01")), List.of(), Set.of());
    Instant utcNewYearsEveNoon = Instant.parse("2026-12-31T12:00:00Z"); // 01:00 on 1 Jan there
    assertThat(newYear.excludes(utcNewYearsEveNoon)).isTrue();
    assertThat(newYear.localDate(utcNewYearsEveNoon)).isEqualTo(LocalDate.parse("2027-01-01"));
    assertThat(newYear.excludes(Instant.parse("2027-01-01T12:00:00Z"))).as("2 Jan there").isFalse();
  }

  @Test
  void aDstDayIsExcludedWholeWithItsTwentyThreeHours() {
    // Berlin springs forward on 2026-03-29: the day runs 2026-03-28T23:00Z .. 2026-03-29T22:00Z.
    ExclusionCalendar dst =
        calendar(BERLIN, List.of(LocalDate.parse("2026-03-29")), List.of(), Set.of());
    assertThat(dst.excludes(Instant.parse("2026-03-28T22:59:59Z"))).isFalse();
    assertThat(dst.excludes(Instant.parse("2026-03-28T23:00:00Z"))).isTrue();
    assertThat(dst.excludes(Instant.parse("2026-03-29T21:59:59Z"))).isTrue();
    assertThat(dst.excludes(Instant.parse("2026-03-29T22:00:00Z"))).isFalse();
  }

  @Test
  void rangesAreInclusiveAndMayOverlap() {
    ExclusionCalendar closed =
        calendar(
            ZoneId.of("UTC"),
            List.of(),
            List.of(
                new DateRange(LocalDate.parse("2026-12-24"), LocalDate.parse("2026-12-28")),
                new DateRange(LocalDate.parse("2026-12-27"), LocalDate.parse("2026-12-31")),
                new DateRange(LocalDate.parse("2026-08-01"), LocalDate.parse("2026-08-01"))),
            Set.of());
    assertThat(closed.excludes(LocalDate.parse("2026-12-23"))).isFalse();
    assertThat(closed.excludes(LocalDate.parse("2026-12-24"))).isTrue();
    assertThat(closed.excludes(LocalDate.parse("2026-12-29"))).isTrue();
    assertThat(closed.excludes(LocalDate.parse("2026-12-31"))).isTrue();
    assertThat(closed.excludes(LocalDate.parse("2027-01-01"))).isFalse();
    assertThat(closed.excludes(LocalDate.parse("2026-08-01"))).isTrue();
    assertThat(closed.excludes(LocalDate.parse("2026-08-02"))).isFalse();
  }

  @Test
  void weeklyDaysRecurEveryWeek() {
    ExclusionCalendar weekends =
        calendar(BERLIN, List.of(), List.of(), Set.of(DayOfWeek.SATURDAY, DayOfWeek.SUNDAY));
    assertThat(weekends.excludes(LocalDate.parse("2026-12-05"))).as("a Saturday").isTrue();
    assertThat(weekends.excludes(LocalDate.parse("2027-06-06"))).as("a Sunday").isTrue();
    assertThat(weekends.excludes(LocalDate.parse("2026-12-07"))).as("a Monday").isFalse();
  }

  @Test
  void jsonRoundTrips() throws Exception {
    JsonNode node =
        JSON.readTree(
            "{\"zone\":\"Europe/Berlin\",\"dates\":[\"2026-12-25\",\"2026-12-25\"],"
                + "\"ranges\":[{\"from\":\"2026-12-24\",\"to\":\"2026-12-31\"},\"2027-04-01..2027-04-02\"],"
                + "\"weekly\":[\"sat\",\"Sunday\"],\"description\":\"office closed\"}");
    ExclusionCalendar read = ExclusionCalendarJson.read("holidays", node);
    assertThat(read.dates()).containsExactly(LocalDate.parse("2026-12-25"));
    assertThat(read.ranges()).hasSize(2);
    assertThat(read.weeklyInOrder()).containsExactly(DayOfWeek.SATURDAY, DayOfWeek.SUNDAY);
    JsonNode written = ExclusionCalendarJson.write(read);
    assertThat(written.get("weekly").toString()).isEqualTo("[\"SAT\",\"SUN\"]");
    assertThat(ExclusionCalendarJson.read("holidays", written)).isEqualTo(read);
    assertThat(
            ExclusionCalendarJson.writeShown(read.withName("billing~holidays"))
                .get("name")
                .asText())
        .isEqualTo("holidays");
  }

  @Test
  void badInputIsRefusedWithItsReason() {
    assertThat(problem("{\"dates\":[]}")).contains("needs its zone");
    assertThat(problem("{\"zone\":\"Mars/Olympus\"}")).contains("unknown time zone");
    assertThat(problem("{\"zone\":\"UTC\",\"weekly\":[\"FUNDAY\"]}")).contains("unknown day");
    assertThat(problem("{\"zone\":\"UTC\",\"dates\":[\"2026-02-30\"]}")).contains("not a date");
    assertThat(problem("{\"zone\":\"UTC\",\"ranges\":[\"2026-12-31..2026-12-24\"]}"))
        .contains("ends before it starts");
    assertThat(problem("{\"zone\":\"UTC\",\"ranges\":[{\"from\":\"2026-12-31\"}]}"))
        .contains("a range is");
    assertThat(problem("{\"zone\":\"UTC\",\"holidays\":[]}")).contains("no field");
    assertThat(problem("{\"zone\":\"UTC\",\"name\":\"other\"}")).contains("names calendar");
    assertThat(problem("[]")).contains("JSON object");
    List<String> many = new ArrayList<>();
    LocalDate day = LocalDate.parse("2026-01-01");
    for (int i = 0; i <= ExclusionCalendar.MAX_ENTRIES; i++) {
      many.add("\"" + day.plusDays(i) + "\"");
    }
    assertThat(problem("{\"zone\":\"UTC\",\"dates\":[" + String.join(",", many) + "]}"))
        .contains("at most 1000");
    assertThatThrownBy(
            () -> new ExclusionCalendar("bad name", BERLIN, List.of(), List.of(), Set.of(), null))
        .hasMessageContaining("calendar name");
  }

  @Test
  void theSchemasExamplesRead() throws Exception {
    JsonNode schema =
        JSON.readTree(
            java.nio.file.Path.of("..", "docs", "contract", "calendar.schema.json").toFile());
    assertThat(schema.get("examples")).isNotEmpty();
    for (JsonNode example : schema.get("examples")) {
      ExclusionCalendar read = ExclusionCalendarJson.read("example", example);
      assertThat(read.excludes(LocalDate.parse("2026-12-25"))).isTrue();
    }
  }

  private static String problem(String json) {
    try {
      ExclusionCalendarJson.read("holidays", JSON.readTree(json));
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    throw new AssertionError("accepted: " + json);
  }
}
