package dev.ax.common.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.TaskSpec;
import dev.ax.common.time.SettableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code "sharding": {"total": N}} in a task command: bounds, types, and the stored round trip. */
class ShardingCommandTest {

  private final CommandReader reader =
      new CommandReader(
          Duration.ofSeconds(60),
          IntakeLimits.DEFAULTS,
          new SettableClock(Instant.parse("2026-06-01T00:00:00Z")));

  private CommandReadResult read(String sharding) {
    String json =
        "{\"v\":1,\"taskId\":\"t-1\",\"trigger\":{\"type\":\"ONCE\",\"delayMs\":1000},"
            + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"}"
            + (sharding == null ? "" : ",\"sharding\":" + sharding)
            + "}";
    return reader.read(json.getBytes(StandardCharsets.UTF_8));
  }

  private TaskSpec accepted(String sharding) {
    CommandReadResult result = read(sharding);
    assertThat(result).as(sharding).isInstanceOf(CommandReadResult.Accepted.class);
    return ((CommandReadResult.Accepted) result).command().spec();
  }

  @Test
  void aShardedTaskIsReadKeptAndWrittenBack() {
    TaskSpec spec = accepted("{\"total\":5}");
    assertThat(spec.shardTotal()).isEqualTo(5);
    assertThat(spec.isSharded()).isTrue();
    assertThat(TaskSpecJson.write(spec).path("sharding").path("total").asInt()).isEqualTo(5);
    assertThat(TaskSpecJson.readStored("t-1", TaskSpecJson.write(spec).toString())).isEqualTo(spec);
  }

  @Test
  void withoutShardingOrWithOneShardATaskIsNotSharded() {
    for (String sharding : new String[] {null, "{\"total\":1}", "null"}) {
      TaskSpec spec = accepted(sharding);
      assertThat(spec.shardTotal()).as(sharding).isEqualTo(1);
      assertThat(spec.isSharded()).isFalse();
      assertThat(TaskSpecJson.write(spec).has("sharding")).isFalse();
    }
    assertThat(accepted("{\"total\":" + TaskSpec.MAX_SHARDS + "}").shardTotal())
        .isEqualTo(TaskSpec.MAX_SHARDS);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"total\":0}|sharding.total must be in 1..100: 0",
        "{\"total\":-1}|sharding.total must be in 1..100: -1",
        "{\"total\":101}|sharding.total must be in 1..100: 101",
        "{\"total\":9223372036854775807}|sharding.total must be in 1..100",
        "{\"total\":\"5\"}|'sharding.total' must be an integer, not a string",
        "{\"total\":2.5}|'sharding.total' must be an integer",
        "{\"total\":1e400}|'sharding.total' must be an integer",
        "{}|sharding.total",
        "5|sharding",
        "[5]|sharding",
      })
  void aShardingThatIsNotAWholeNumberOfShardsWithinTheBoundIsRejected(
      String sharding, String reason) {
    CommandReadResult result = read(sharding);
    assertThat(result).as(sharding).isInstanceOf(CommandReadResult.Rejected.class);
    assertThat(((CommandReadResult.Rejected) result).reason()).contains(reason);
  }
}
