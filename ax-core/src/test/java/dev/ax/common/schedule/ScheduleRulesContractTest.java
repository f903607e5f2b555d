package dev.ax.common.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.CommandReadResult;
import dev.ax.common.contract.CommandReader;
import dev.ax.common.contract.IntakeLimits;
import dev.ax.common.contract.TaskSpecJson;
import dev.ax.common.model.OverlapPolicy;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.time.SettableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The schedule rules of the task command ({@code overlap}, {@code catchUpWindowMs}, {@code
 * jitterMs}, {@code jitterSymmetric}, {@code calendars}) and a periodic trigger's {@code startAt} /
 * {@code endAt}: read, refused with the reason, round-tripped through the stored form.
 */
class ScheduleRulesContractTest {

  private final SettableClock clock = new SettableClock(Instant.parse("2026-06-01T00:00:00Z"));
  private final CommandReader reader =
      new CommandReader(Duration.ofSeconds(60), IntakeLimits.DEFAULTS, clock);

  private static final String CRON =
      "\"trigger\":{\"type\":\"CRON\",\"expression\":\"0/5 * * * * ?\"}";

  private CommandReadResult read(String taskFields) {
    String json =
        "{\"v\":1,\"taskId\":\"t\",\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"},"
            + taskFields
            + "}";
    return reader.read(json.getBytes(StandardCharsets.UTF_8));
  }

  private TaskSpec accepted(String taskFields) {
    CommandReadResult result = read(taskFields);
    assertThat(result).isInstanceOf(CommandReadResult.Accepted.class);
    TaskSpec spec = ((CommandReadResult.Accepted) result).command().spec();
    assertThat(TaskSpecJson.readStored("t", AxJson.writeString(TaskSpecJson.write(spec))))
        .as("the stored form reads back the same")
        .isEqualTo(spec);
    return spec;
  }

  private String rejected(String taskFields) {
    CommandReadResult result = read(taskFields);
    assertThat(result).isInstanceOf(CommandReadResult.Rejected.class);
    return ((CommandReadResult.Rejected) result).reason();
  }

  @ParameterizedTest
  @CsvSource({
    "SKIP, SKIP",
    "BUFFER_ONE, BUFFER_ONE",
    "buffer_all, BUFFER_ALL",
    "CANCEL_OTHER, CANCEL_OTHER",
    "ALLOW_ALL, ALLOW_ALL"
  })
  void readsEveryOverlapPolicy(String written, OverlapPolicy read) {
    assertThat(accepted(CRON + ",\"overlap\":\"" + written + "\"").overlap()).isEqualTo(read);
  }

  @ParameterizedTest
  @CsvSource({
    "'\"concurrent\":true', ALLOW_ALL",
    "'\"concurrent\":true,\"concurrencyPolicy\":\"DELAY\"', ALLOW_ALL",
    "'\"concurrencyPolicy\":\"DELAY\"', ALLOW_ALL",
    "'\"concurrent\":false', SKIP",
    "'\"concurrent\":false,\"concurrencyPolicy\":\"SKIP\"', SKIP",
    "'\"concurrent\":false,\"concurrencyPolicy\":\"DELAY\"', BUFFER_ONE"
  })
  void theOlderFieldsKeepTheirMeaning(String fields, OverlapPolicy read) {
    assertThat(accepted(CRON + "," + fields).overlap()).isEqualTo(read);
  }

  @Test
  void aSpecStoredBeforeOverlapExistedKeepsOverlapping() {
    // What the stored spec of a task created without concurrent looked like: concurrent true.
    String stored =
        "{\"taskId\":\"t\",\"group\":\"default\",\"trigger\":{\"type\":\"CRON\","
            + "\"expression\":\"0/5 * * * * ?\",\"zone\":\"UTC\"},"
            + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"},\"timeoutMs\":60000,"
            + "\"concurrent\":true,\"concurrencyPolicy\":\"SKIP\"}";

    assertThat(TaskSpecJson.readStored("t", stored).overlap()).isEqualTo(OverlapPolicy.ALLOW_ALL);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "\"overlap\":\"SKIP\",\"concurrent\":false|not both",
        "\"overlap\":\"SOMETIMES\"|overlap",
        "\"overlap\":7|overlap",
        "\"catchUpWindowMs\":-1|catchUpWindowMs must be in 0..31622400000: -1",
        "\"catchUpWindowMs\":31622400001|catchUpWindowMs must be in 0..31622400000",
        "\"catchUpWindowMs\":\"1h\"|catchUpWindowMs",
        "\"catchUpWindowMs\":60000,\"misfire\":{\"policy\":\"SKIP\"}|not both",
        "\"jitterMs\":-5|jitterMs must be in 0..3600000: -5",
        "\"jitterMs\":3600001|jitterMs must be in 0..3600000",
        "\"jitterMs\":1e400|jitterMs",
        "\"jitterSymmetric\":\"yes\"|jitterSymmetric",
        "\"calendars\":\"holidays\"|calendars must be an array",
        "\"calendars\":[\"a\",\"a\"]|twice",
        "\"calendars\":[\"has space\"]|invalid name",
        "\"calendars\":[7]|invalid name",
        "\"calendars\":[\"other~x\"]|calendars",
        "\"calendars\":[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\",\"j\",\"k\"]|at most 10",
        "\"overlap\":\"CANCEL_OTHER\",\"sharding\":{\"total\":3}|does not go with sharding",
      })
  void refusesAWrongRuleWithTheReason(String fields, String reason) {
    assertThat(rejected(CRON + "," + fields)).contains(reason);
  }

  @Test
  void readsTheOtherRules() {
    TaskSpec spec =
        accepted(
            CRON
                + ",\"catchUpWindowMs\":600000,\"misfire\":{\"maxFireAll\":5},"
                + "\"jitterMs\":30000,\"jitterSymmetric\":true,"
                + "\"calendars\":[\"holidays\",\"weekends\"]");

    assertThat(spec.rules().catchUpWindow()).isEqualTo(Duration.ofMinutes(10));
    assertThat(spec.maxFireAll()).isEqualTo(5);
    assertThat(spec.rules().jitter()).isEqualTo(Duration.ofSeconds(30));
    assertThat(spec.rules().jitterSymmetric()).isTrue();
    assertThat(spec.rules().calendars()).containsExactly("holidays", "weekends");
  }

  @Test
  void everyPeriodicTriggerTakesStartAndEnd() {
    Trigger cron =
        accepted(
                "\"trigger\":{\"type\":\"CRON\",\"expression\":\"0 0 * * * ?\","
                    + "\"startAt\":\"2026-06-02T00:00:00Z\",\"endAtMs\":1780531200000}")
            .trigger();
    Trigger rate =
        accepted(
                "\"trigger\":{\"type\":\"FIXED_RATE\",\"intervalMs\":60000,"
                    + "\"endAt\":\"2026-07-01T00:00:00Z\"}")
            .trigger();
    Trigger delay =
        accepted(
                "\"trigger\":{\"type\":\"FIXED_DELAY\",\"intervalMs\":60000,"
                    + "\"endAt\":\"2026-07-01T00:00:00Z\"}")
            .trigger();

    assertThat(((Trigger.Cron) cron).startAt()).isEqualTo(Instant.parse("2026-06-02T00:00:00Z"));
    assertThat(cron.endAt()).isEqualTo(Instant.ofEpochMilli(1780531200000L));
    assertThat(rate.endAt()).isEqualTo(Instant.parse("2026-07-01T00:00:00Z"));
    assertThat(delay.endAt()).isEqualTo(Instant.parse("2026-07-01T00:00:00Z"));
  }

  @Test
  void anEndBeforeTheStartIsRefused() {
    assertThat(
            rejected(
                "\"trigger\":{\"type\":\"CRON\",\"expression\":\"0 0 * * * ?\","
                    + "\"startAt\":\"2026-06-03T00:00:00Z\",\"endAt\":\"2026-06-02T00:00:00Z\"}"))
        .contains("endAt must not be before startAt");
  }

  @Test
  void slotsStayWithinStartAndEnd() {
    FireTimes fireTimes = new FireTimes();
    Trigger.Cron hourly =
        new Trigger.Cron(
            "0 0 * * * ?",
            java.time.ZoneOffset.UTC,
            Instant.parse("2026-06-02T00:00:00Z"),
            Instant.parse("2026-06-02T03:00:00Z"));
    Instant accepted = Instant.parse("2026-06-01T00:00:00Z");

    assertThat(fireTimes.first(hourly, accepted)).contains(Instant.parse("2026-06-02T00:00:00Z"));
    Slots slots = fireTimes.slots(hourly, accepted);
    assertThat(slots.nextAfter(Instant.parse("2026-06-02T02:00:00Z")))
        .contains(Instant.parse("2026-06-02T03:00:00Z"));
    assertThat(slots.nextAfter(Instant.parse("2026-06-02T03:00:00Z"))).isEmpty();
    assertThat(slots.count(accepted, Instant.parse("2026-06-09T00:00:00Z"), 100).count())
        .isEqualTo(4);
    assertThat(slots.newest(10, accepted, Instant.parse("2026-06-09T00:00:00Z")))
        .hasSize(4)
        .endsWith(Instant.parse("2026-06-02T03:00:00Z"));
    assertThat(slots.latestIn(Instant.parse("2026-06-03T00:00:00Z"), Instant.MAX.minusSeconds(1)))
        .isEmpty();

    Trigger.FixedDelay delay =
        new Trigger.FixedDelay(Duration.ofMinutes(1), null, Instant.parse("2026-06-01T00:00:00Z"));
    assertThat(FireTimes.isAfterEnd(delay, Instant.parse("2026-06-01T00:00:01Z").toEpochMilli()))
        .isTrue();
    assertThat(fireTimes.first(delay, Instant.parse("2026-06-01T00:00:01Z"))).isEmpty();
    assertThat(
            List.of(
                FireTimes.isAfterEnd(
                    new Trigger.Cron("0 * * * * ?", java.time.ZoneOffset.UTC), Long.MAX_VALUE)))
        .containsExactly(false);
  }

  @Test
  void calendarNamesAreQualifiedInTheirNamespaceAndShownWithout() {
    CommandReadResult read =
        dev.ax.common.contract.NamespaceQualifier.qualify(
            new dev.ax.common.model.Namespace("billing"),
            ((CommandReadResult.Accepted) read(CRON + ",\"calendars\":[\"holidays\"]")).command());
    TaskSpec stored = ((CommandReadResult.Accepted) read).command().spec();
    assertThat(stored.rules().calendars()).containsExactly("billing~holidays");
    assertThat(TaskSpecJson.readStored("billing~t", AxJson.writeString(TaskSpecJson.write(stored))))
        .isEqualTo(stored);
    assertThat(TaskSpecJson.writeAsProduced(stored).get("calendars").toString())
        .isEqualTo("[\"holidays\"]");
  }
}
