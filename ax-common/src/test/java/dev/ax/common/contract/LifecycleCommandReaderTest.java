package dev.ax.common.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.time.SettableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Reading the commands that change an existing task (CANCEL). */
class LifecycleCommandReaderTest {

  private final CommandReader reader =
      new CommandReader(
          Duration.ofSeconds(60),
          IntakeLimits.DEFAULTS,
          new SettableClock(Instant.parse("2026-06-01T00:00:00Z")));

  private CommandReadResult read(String json) {
    return reader.read(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void readsACancelWithItsIdAndReason() {
    CommandReadResult result =
        read(
            "{\"v\":1,\"type\":\"cancel\",\"taskId\":\"t-1\",\"commandId\":\"op-7\","
                + "\"reason\":\"created by mistake\"}");

    assertThat(result).isInstanceOf(CommandReadResult.Accepted.class);
    TaskCommand command = ((CommandReadResult.Accepted) result).command();
    assertThat(command.type()).isEqualTo(CommandType.CANCEL);
    assertThat(command.isLifecycle()).isTrue();
    assertThat(command.spec()).isNull();
    assertThat(command.commandId()).isEqualTo("op-7");
    assertThat(command.reason()).isEqualTo("created by mistake");
  }

  @Test
  void aCancelNeedsNeitherIdNorReason() {
    TaskCommand command =
        ((CommandReadResult.Accepted) read("{\"v\":1,\"type\":\"CANCEL\",\"taskId\":\"t\"}"))
            .command();

    assertThat(command.commandId()).isNull();
    assertThat(command.reason()).isNull();
    assertThat(command.traceId()).isNotBlank();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "bad command id | \"commandId\":\"a b\" | commandId must match",
        "command id too long | \"commandId\":\"%s\" | commandId must match",
        "reason too long | \"reason\":\"%s\" | reason must be at most 500 characters",
        "reason with a newline | \"reason\":\"one\\ntwo\" | reason must be one line",
        "interrupt asked for | \"interrupt\":true | interrupt is not supported yet",
        "interrupt not a boolean | \"interrupt\":\"yes\" | interrupt",
        "reason not text | \"reason\":5 | reason"
      })
  void rejectsAMalformedCancel(String name, String field, String expected) {
    String json =
        "{\"v\":1,\"type\":\"CANCEL\",\"taskId\":\"t\","
            + field.replace("%s", "x".repeat(600))
            + "}";

    CommandReadResult result = read(json);

    assertThat(result).isInstanceOf(CommandReadResult.Rejected.class);
    assertThat(((CommandReadResult.Rejected) result).reason()).contains(expected);
  }
}
