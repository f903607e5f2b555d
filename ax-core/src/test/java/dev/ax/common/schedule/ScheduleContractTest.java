package dev.ax.common.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.CommandReadResult;
import dev.ax.common.contract.CommandReader;
import dev.ax.common.contract.IntakeLimits;
import dev.ax.common.contract.TaskSpecJson;
import dev.ax.common.model.ConcurrencyPolicy;
import dev.ax.common.model.MisfirePolicy;
import dev.ax.common.model.OverlapPolicy;
import dev.ax.common.model.ScheduleRules;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.time.SettableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The task command's schedule fields: cron expressions checked with Quartz's parser when read, and
 * the optional {@code misfire}, {@code concurrent} and {@code concurrencyPolicy}.
 */
class ScheduleContractTest {

  private final SettableClock clock = new SettableClock(Instant.parse("2026-06-01T00:00:00Z"));
  private final CommandReader reader =
      new CommandReader(Duration.ofSeconds(60), IntakeLimits.DEFAULTS, clock);

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
    return ((CommandReadResult.Accepted) result).command().spec();
  }

  private String rejected(String taskFields) {
    CommandReadResult result = read(taskFields);
    assertThat(result).isInstanceOf(CommandReadResult.Rejected.class);
    return ((CommandReadResult.Rejected) result).reason();
  }

  private static final String CRON =
      "\"trigger\":{\"type\":\"CRON\",\"expression\":\"0/5 * * * * ?\"}";

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "0 0 25 * * ?|Hour values must be between 0 and 23",
        "0 0 12 * * *|day-of-week AND a day-of-month",
        "0 0 0 30 2 ?|matches no date",
        "* * * * *|Unexpected end of expression",
      })
  void anInvalidCronExpressionIsRejectedWithTheReason(String expression, String why) {
    String reason =
        rejected("\"trigger\":{\"type\":\"CRON\",\"expression\":\"" + expression + "\"}");

    assertThat(reason)
        .startsWith("trigger.expression is not a valid Quartz cron expression: ")
        .contains(why)
        .contains(expression);
  }

  @Test
  void defaults() {
    TaskSpec spec = accepted(CRON);

    assertThat(spec.misfirePolicy()).isEqualTo(MisfirePolicy.FIRE_ONCE_NOW);
    assertThat(spec.maxFireAll()).isEqualTo(MisfirePolicy.DEFAULT_MAX_FIRE_ALL);
    // New tasks do not overlap unless they ask to (before overlap existed they did).
    assertThat(spec.overlap()).isEqualTo(OverlapPolicy.SKIP);
    assertThat(spec.concurrent()).isFalse();
    assertThat(spec.concurrencyPolicy()).isEqualTo(ConcurrencyPolicy.SKIP);
    assertThat(spec.rules()).isEqualTo(ScheduleRules.DEFAULT);
  }

  @Test
  void readsAndRoundTripsTheScheduleFields() {
    TaskSpec spec =
        accepted(
            CRON
                + ",\"misfire\":{\"policy\":\"fire_all\",\"maxFireAll\":7},"
                + "\"concurrent\":false,\"concurrencyPolicy\":\"DELAY\"");

    assertThat(spec.misfirePolicy()).isEqualTo(MisfirePolicy.FIRE_ALL);
    assertThat(spec.maxFireAll()).isEqualTo(7);
    assertThat(spec.concurrent()).isFalse();
    assertThat(spec.concurrencyPolicy()).isEqualTo(ConcurrencyPolicy.DELAY);
    assertThat(TaskSpecJson.readStored("t", AxJson.writeString(TaskSpecJson.write(spec))))
        .isEqualTo(spec);
  }

  @Test
  void aMisfireObjectWithOnlyAPolicyKeepsTheDefaultCap() {
    TaskSpec spec = accepted(CRON + ",\"misfire\":{\"policy\":\"SKIP\"}");

    assertThat(spec.misfirePolicy()).isEqualTo(MisfirePolicy.SKIP);
    assertThat(spec.maxFireAll()).isEqualTo(MisfirePolicy.DEFAULT_MAX_FIRE_ALL);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "\"misfire\":\"SKIP\"|field 'misfire' must be an object",
        "\"misfire\":{\"policy\":\"NEVER\"}|misfire.policy must be one of",
        "\"misfire\":{\"maxFireAll\":0}|misfire.maxFireAll must be in 1..10000",
        "\"misfire\":{\"maxFireAll\":10001}|misfire.maxFireAll must be in 1..10000",
        "\"misfire\":{\"maxFireAll\":\"5\"}|must be an integer",
        "\"concurrent\":\"no\"|field 'concurrent' must be a boolean",
        "\"concurrencyPolicy\":\"WAIT\"|concurrencyPolicy must be one of [SKIP, DELAY]",
      })
  void badScheduleFieldsAreRejected(String field, String why) {
    assertThat(rejected(CRON + "," + field)).contains(why);
  }
}
