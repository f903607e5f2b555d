package dev.ax.common.contract;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TriggerType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The completion event's published schema and examples (docs/contract) agree with {@link
 * TaskCompletedEvent}, and its {@code result} stays backward compatible: absent when a run said
 * nothing, an event without it reads as before.
 */
class CompletionEventContractTest {

  private static final Path CONTRACT = Path.of("..", "docs", "contract");

  private static JsonSchema schema() throws Exception {
    JsonNode node = AxJson.MAPPER.readTree(CONTRACT.resolve("task-completed.schema.json").toFile());
    return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(node);
  }

  @Test
  void everyExampleFitsTheSchemaAndReadsBackAsWritten() throws Exception {
    List<Path> examples;
    try (Stream<Path> files = Files.list(CONTRACT.resolve("events"))) {
      examples = files.sorted().toList();
    }
    assertThat(examples).isNotEmpty();
    for (Path example : examples) {
      JsonNode json = AxJson.MAPPER.readTree(example.toFile());
      assertThat(schema().validate(json)).as("%s against the schema", example).isEmpty();
      TaskCompletedEvent event = AxJson.read(Files.readAllBytes(example), TaskCompletedEvent.class);
      assertThat(event.result()).as("%s has a result", example).isNotNull();
      assertThat(AxJson.MAPPER.readTree(AxJson.write(event))).as("%s", example).isEqualTo(json);
    }
  }

  @Test
  void anEventWithoutOutputHasNoResultAndAnOldEventReadsWithoutOne() throws Exception {
    TaskCompletedEvent quiet =
        new TaskCompletedEvent(
            1,
            "t",
            "t@1",
            1,
            InstanceStatus.SUCCESS,
            1,
            2,
            3,
            4,
            1,
            1,
            "tr",
            null,
            "n",
            InstanceStatus.SUCCESS,
            "t@1",
            null,
            null);

    JsonNode written = AxJson.MAPPER.readTree(AxJson.write(quiet));

    assertThat(written.has("result")).isFalse();
    assertThat(schema().validate(written)).isEmpty();
    TaskCompletedEvent old = AxJson.read(AxJson.write(quiet), TaskCompletedEvent.class);
    assertThat(old).isEqualTo(quiet);
    assertThat(old.result()).isNull();
  }

  @Test
  void aFiringThatDidNotRunFitsTheSchema() throws Exception {
    TaskCompletedEvent skipped =
        new TaskCompletedEvent(
            1,
            "t",
            "t@1000",
            0,
            InstanceStatus.SKIPPED,
            1000,
            0,
            0,
            1200,
            0,
            200,
            "tr",
            "overlap: a run of the task is in flight (t@0) (policy SKIP)",
            "ticker-1",
            InstanceStatus.SKIPPED,
            "t@1000",
            TriggerType.CRON,
            null);

    assertThat(schema().validate(AxJson.MAPPER.readTree(AxJson.write(skipped)))).isEmpty();
  }

  @Test
  void aSummaryIsTheStartOfTheOutput() {
    assertThat(RunResult.of(null, 200)).isNull();
    assertThat(RunResult.of("HTTP 200", 200)).isEqualTo(new RunResult("HTTP 200", 200));
    assertThat(RunResult.of("x".repeat(1000), null).summary()).hasSize(RunResult.MAX_SUMMARY_CHARS);
    String pairAtTheEdge = "y".repeat(RunResult.MAX_SUMMARY_CHARS - 1) + "\uD83D\uDE00";
    assertThat(RunResult.of(pairAtTheEdge, null).summary())
        .as("never half a character")
        .hasSize(RunResult.MAX_SUMMARY_CHARS - 1);
  }
}
