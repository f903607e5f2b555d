package dev.ax.common.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.ExecutorType;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CommandReaderTest {

  private final CommandReader reader = new CommandReader(Duration.ofSeconds(60));

  private CommandReadResult read(String json) {
    return reader.read(json.getBytes(StandardCharsets.UTF_8));
  }

  private String reasonOf(String json) {
    CommandReadResult result = read(json);
    assertThat(result).isInstanceOf(CommandReadResult.Rejected.class);
    return ((CommandReadResult.Rejected) result).reason();
  }

  @Test
  void readsAFullCreateCommand() {
    CommandReadResult result =
        read(
            """
            {"v":1,"type":"CREATE","taskId":"t-1","group":"g","traceId":"tr",
             "trigger":{"type":"ONCE","at":"2030-01-01T00:00:00Z"},
             "executor":{"type":"HTTP","url":"https://example.com/x","method":"put","headers":{"A":"b"},"body":{"k":1}},
             "timeoutMs":1500,"retry":{"maxRetries":5,"backoffBaseMs":200,"backoffMaxMs":5000,"jitter":false},
             "params":{"n":3}}
            """);

    TaskCommand command = ((CommandReadResult.Accepted) result).command();
    TaskSpec spec = command.spec();
    assertThat(command.traceId()).isEqualTo("tr");
    assertThat(command.timeoutDefaulted()).isFalse();
    assertThat(spec.group()).isEqualTo("g");
    assertThat(spec.trigger()).isEqualTo(Trigger.Once.at(Instant.parse("2030-01-01T00:00:00Z")));
    assertThat(spec.executor().type()).isEqualTo(ExecutorType.HTTP);
    assertThat(spec.executor().method()).isEqualTo("PUT");
    assertThat(spec.executor().body()).isEqualTo("{\"k\":1}");
    assertThat(spec.timeout()).isEqualTo(Duration.ofMillis(1500));
    assertThat(spec.retry().maxRetries()).isEqualTo(5);
    assertThat(spec.retry().jitter()).isFalse();
    assertThat(spec.params()).containsEntry("n", "3");
  }

  @Test
  void readsADependencyTaskAndATriggerAndRefusesARepeatedUpstream() {
    TaskCommand dependency =
        ((CommandReadResult.Accepted)
                read(
                    """
                    {"v":1,"taskId":"report","trigger":{"type":"DEPENDENCY","upstream":["a","b"]},
                     "executor":{"type":"IN_PROCESS","handler":"noop"}}
                    """))
            .command();
    assertThat(dependency.spec().trigger())
        .isEqualTo(new Trigger.Dependency(java.util.List.of("a", "b")));

    TaskCommand trigger =
        ((CommandReadResult.Accepted)
                read("{\"v\":1,\"type\":\"TRIGGER\",\"taskId\":\"report\",\"flowRunId\":\"a@1\"}"))
            .command();
    assertThat(trigger.type()).isEqualTo(CommandType.TRIGGER);
    assertThat(trigger.flowRunId()).isEqualTo("a@1");

    assertThat(reasonOf("{\"v\":1,\"type\":\"TRIGGER\",\"taskId\":\"report\"}"))
        .contains("flowRunId");
    assertThat(
            reasonOf(
                """
                {"v":1,"taskId":"r","trigger":{"type":"DEPENDENCY","upstream":["a","a"]},
                 "executor":{"type":"IN_PROCESS","handler":"noop"}}
                """))
        .isEqualTo("trigger.upstream lists \"a\" twice");
  }

  @Test
  void appliesDefaultsAndGeneratesATraceId() {
    TaskCommand command =
        ((CommandReadResult.Accepted)
                read(
                    """
                    {"v":1,"taskId":"t","trigger":{"type":"ONCE","delayMs":5},
                     "executor":{"type":"IN_PROCESS","handler":"noop"}}
                    """))
            .command();

    assertThat(command.type()).isEqualTo(CommandType.CREATE);
    assertThat(command.spec().group()).isEqualTo(TaskSpec.DEFAULT_GROUP);
    assertThat(command.spec().timeout()).isEqualTo(Duration.ofSeconds(60));
    assertThat(command.timeoutDefaulted()).isTrue();
    assertThat(command.traceId()).isNotBlank();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"v\":1,\"taskId\":\"x\",|malformed JSON",
        "[1,2]|must be a JSON object",
        "{\"taskId\":\"x\"}|missing field 'v'",
        "{\"v\":2,\"taskId\":\"x\"}|unsupported contract version",
        "{\"v\":1,\"trigger\":{\"type\":\"ONCE\",\"delayMs\":1}}|missing field 'taskId'",
        "{\"v\":1,\"taskId\":\"a@b\"}|taskId must match",
        "{\"v\":1,\"taskId\":\"x\",\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"n\"}}|missing field 'trigger'",
        "{\"v\":1,\"taskId\":\"x\",\"trigger\":{\"type\":\"ONCE\",\"delayMs\":-1},\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"n\"}}|trigger.delayMs must not be negative: -1",
        "{\"v\":1,\"taskId\":\"x\",\"trigger\":{\"type\":\"ONCE\",\"delayMs\":1},\"executor\":{\"type\":\"FTP\"}}|unknown executor type 'FTP'",
        "{\"v\":1,\"taskId\":\"x\",\"trigger\":{\"type\":\"SOMETIMES\"},\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"n\"}}|unknown trigger type 'SOMETIMES'",
        "{\"v\":1,\"taskId\":\"x\",\"trigger\":{\"type\":\"CRON\",\"expression\":\"0 * * * * ?\",\"zone\":\"Mars/Base\"},\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"n\"}}|not an IANA time zone",
        "{\"v\":1,\"taskId\":\"x\",\"trigger\":{\"type\":\"ONCE\",\"delayMs\":1},\"executor\":{\"type\":\"HTTP\",\"url\":\"file:///etc/passwd\"}}|must be an http(s) URL",
        "{\"v\":1,\"taskId\":\"x\",\"trigger\":{\"type\":\"ONCE\",\"delayMs\":1},\"executor\":{\"type\":\"SHELL\",\"script\":\"../../bin/rm\"}}|plain file name",
        "{\"v\":1,\"taskId\":\"x\",\"trigger\":{\"type\":\"ONCE\",\"delayMs\":1},\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"n\"},\"timeoutMs\":0}|timeoutMs must be in",
        "{\"v\":1,\"taskId\":\"x\",\"type\":\"EXPLODE\"}|unknown command type 'EXPLODE'",
      })
  void rejectsWithAReasonAProducerCanActOn(String json, String expectedReason) {
    assertThat(reasonOf(json)).contains(expectedReason);
  }

  @Test
  void rejectsEmptyMessages() {
    assertThat(reader.read(new byte[0])).isEqualTo(new CommandReadResult.Rejected("empty message"));
    assertThat(reader.read(null)).isInstanceOf(CommandReadResult.Rejected.class);
  }

  @Test
  void storedSpecsRoundTrip() {
    TaskSpec spec =
        ((CommandReadResult.Accepted)
                read(
                    """
                    {"v":1,"taskId":"rt","group":"g","trigger":{"type":"ONCE","delayMs":7},
                     "executor":{"type":"HTTP","url":"http://h:1/p","headers":{"X":"y"},"body":"b"},
                     "params":{"a":"b"}}
                    """))
            .command()
            .spec();

    TaskSpec back = TaskSpecJson.readStored("rt", AxJson.writeString(TaskSpecJson.write(spec)));

    assertThat(back).isEqualTo(spec);
  }
}
