package dev.ax.common.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.PoolNames;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.time.SettableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PoolTargetJsonTest {

  private final CommandReader reader =
      new CommandReader(
          Duration.ofSeconds(60),
          IntakeLimits.DEFAULTS,
          new SettableClock(Instant.parse("2026-06-01T00:00:00Z")));

  private CommandReadResult read(String executor) {
    String json =
        "{\"v\":1,\"taskId\":\"t-1\",\"trigger\":{\"type\":\"ONCE\",\"delayMs\":1000},"
            + "\"executor\":"
            + executor
            + ",\"timeoutMs\":1500}";
    return reader.read(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aPoolTaskIsReadWithItsPathAndWrittenBackTheSame() {
    CommandReadResult result =
        read(
            "{\"type\":\"HTTP\",\"pool\":\"render-1\",\"path\":\"/run?x=1\",\"method\":\"put\","
                + "\"headers\":{\"A\":\"b\"},\"body\":\"hi\"}");
    TaskSpec spec = ((CommandReadResult.Accepted) result).command().spec();
    ExecutorSpec.Http http = (ExecutorSpec.Http) spec.executor();
    assertThat(http.url()).isNull();
    assertThat(http.pool()).isEqualTo("render-1");
    assertThat(http.path()).isEqualTo("/run?x=1");
    assertThat(http.method()).isEqualTo("PUT");
    assertThat(http.headers()).containsEntry("A", "b");
    assertThat(TaskSpecJson.readStored("t-1", TaskSpecJson.write(spec).toString())).isEqualTo(spec);

    ExecutorSpec.Http noPath =
        (ExecutorSpec.Http)
            ((CommandReadResult.Accepted) read("{\"type\":\"HTTP\",\"pool\":\"p\"}"))
                .command()
                .spec()
                .executor();
    assertThat(noPath.path()).isEmpty();
    assertThat(ExecutorJson.write(noPath).has("path")).isFalse();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"type\":\"HTTP\",\"pool\":\"p\",\"url\":\"http://h/x\"}",
        "{\"type\":\"HTTP\",\"url\":\"http://h/x\",\"path\":\"/x\"}",
        "{\"type\":\"HTTP\",\"pool\":\"P\"}",
        "{\"type\":\"HTTP\",\"pool\":7}",
        "{\"type\":\"HTTP\",\"pool\":\"p\",\"path\":\"run\"}",
        "{\"type\":\"HTTP\",\"pool\":\"p\",\"path\":\"//evil.example.com/\"}",
        "{\"type\":\"HTTP\",\"pool\":\"p\",\"path\":\"/a#frag\"}",
        "{\"type\":\"HTTP\",\"pool\":\"p\",\"path\":\"/a b\"}",
        "{\"type\":\"HTTP\"}"
      })
  void aWrongPoolTargetIsRejectedWithAReason(String executor) {
    assertThat(read(executor)).isInstanceOf(CommandReadResult.Rejected.class);
  }

  @Test
  void pathsAreBounded() {
    assertThat(PoolNames.validPath("/")).isTrue();
    assertThat(PoolNames.validPath("/" + "a".repeat(PoolNames.MAX_PATH_LENGTH - 1))).isTrue();
    assertThat(PoolNames.validPath("/" + "a".repeat(PoolNames.MAX_PATH_LENGTH))).isFalse();
    assertThat(PoolNames.validName("a" + "b".repeat(63))).isTrue();
    assertThat(PoolNames.validName("a" + "b".repeat(64))).isFalse();
  }
}
