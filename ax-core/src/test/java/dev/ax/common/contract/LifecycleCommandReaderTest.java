package dev.ax.common.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.time.SettableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Reading the commands that change existing tasks (CANCEL, DELETE, PAUSE and RESUME of a group).
 */
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

  @Test
  void readsADeleteLikeACancel() {
    TaskCommand command =
        accepted("{\"v\":1,\"type\":\"DELETE\",\"taskId\":\"t\",\"commandId\":\"d-1\"}");

    assertThat(command.type()).isEqualTo(CommandType.DELETE);
    assertThat(command.isLifecycle()).isTrue();
    assertThat(command.isGroup()).isFalse();
    assertThat(command.key()).isEqualTo("t");
    assertThat(command.commandId()).isEqualTo("d-1");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"CANCEL", "DELETE"})
  void aCancelOrDeleteMayInterruptARunningAttempt(String type) {
    assertThat(
            accepted("{\"v\":1,\"type\":\"" + type + "\",\"taskId\":\"t\",\"interrupt\":true}")
                .interrupt())
        .isTrue();
    assertThat(accepted("{\"v\":1,\"type\":\"" + type + "\",\"taskId\":\"t\"}").interrupt())
        .as("default")
        .isFalse();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"PAUSE", "RESUME", "RUN_NOW"})
  void noOtherCommandInterrupts(String type) {
    assertThat(rejection("{\"v\":1,\"type\":\"" + type + "\",\"taskId\":\"t\",\"interrupt\":true}"))
        .contains("interrupt is only for CANCEL and DELETE, not " + type);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"PAUSE", "RESUME", "pause"})
  void readsAGroupPauseOrResume(String type) {
    TaskCommand command =
        accepted(
            "{\"v\":1,\"type\":\""
                + type
                + "\",\"group\":\"billing.eu-1\",\"commandId\":\"g-1\",\"reason\":\"db"
                + " maintenance\"}");

    assertThat(command.isGroup()).isTrue();
    assertThat(command.taskId()).isNull();
    assertThat(command.group()).isEqualTo("billing.eu-1");
    assertThat(command.key()).isEqualTo("billing.eu-1");
    assertThat(command.reason()).isEqualTo("db maintenance");
    assertThat(command.isLifecycle()).isTrue();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "both taskId and group | PAUSE | \"taskId\":\"t\",\"group\":\"g\" | PAUSE takes"
            + " exactly one of taskId (one task) and group (every task of a group), not both",
        "neither taskId nor group | RESUME | \"commandId\":\"c\" | RESUME takes exactly one of"
            + " taskId (one task) and group (every task of a group), got neither",
        "group with a space | PAUSE | \"group\":\"a b\" | group must match",
        "group too long | PAUSE | \"group\":\"%s\" | group must match",
        "group reserved | RESUME | \"group\":\"__retry\" | group '__retry' is reserved",
        "group empty | RESUME | \"group\":\"\" | field 'group' must be a non-empty string",
        "group not text | PAUSE | \"group\":7 | field 'group' must be a non-empty string",
        "group for a cancel | CANCEL | \"group\":\"g\" | a group is only for PAUSE and RESUME:"
            + " CANCEL takes a taskId",
        "group for a delete | DELETE | \"group\":\"g\" | a group is only for PAUSE and RESUME:"
            + " DELETE takes a taskId",
        "group for run now | RUN_NOW | \"group\":\"g\" | a group is only for PAUSE and RESUME",
        "delete without taskId | DELETE | \"commandId\":\"c\" | missing field 'taskId'"
      })
  void rejectsAGroupCommandThatIsNotExactlyOneGroup(
      String name, String type, String fields, String expected) {
    String json =
        "{\"v\":1,\"type\":\"" + type + "\"," + fields.replace("%s", "g".repeat(65)) + "}";

    assertThat(rejection(json)).contains(expected);
  }

  @Test
  void aCancelOfATaskMayStillCarryAGroupField() {
    // Accepted before group commands existed (unknown fields are ignored); it names the task.
    TaskCommand command =
        accepted("{\"v\":1,\"type\":\"CANCEL\",\"taskId\":\"t\",\"group\":\"g\"}");

    assertThat(command.isGroup()).isFalse();
    assertThat(command.taskId()).isEqualTo("t");
  }

  private TaskCommand accepted(String json) {
    CommandReadResult result = read(json);
    assertThat(result).isInstanceOf(CommandReadResult.Accepted.class);
    return ((CommandReadResult.Accepted) result).command();
  }

  private String rejection(String json) {
    CommandReadResult result = read(json);
    assertThat(result).isInstanceOf(CommandReadResult.Rejected.class);
    return ((CommandReadResult.Rejected) result).reason();
  }
}
