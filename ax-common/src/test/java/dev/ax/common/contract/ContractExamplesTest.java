package dev.ax.common.contract;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import dev.ax.common.time.SettableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The published schema and examples (docs/contract) agree with what the reader accepts. */
class ContractExamplesTest {

  private static final Path CONTRACT = Path.of("..", "docs", "contract");

  /**
   * Examples are judged at a fixed instant, so the valid ones with an absolute due time stay valid.
   * The invalid ones must be rejected at any instant (an end-to-end test sends them through Kafka
   * on the real clock), so theirs lie decades away from any plausible now.
   */
  static final Instant JUDGED_AT = Instant.parse("2026-11-30T00:00:00Z");

  private static final CommandReader READER =
      new CommandReader(
          Duration.ofSeconds(60), IntakeLimits.DEFAULTS, new SettableClock(JUDGED_AT));

  static Stream<Path> validExamples() throws IOException {
    return list(CONTRACT.resolve("examples/valid"));
  }

  static Stream<Path> invalidExamples() throws IOException {
    return list(CONTRACT.resolve("examples/invalid"));
  }

  @ParameterizedTest
  @MethodSource("validExamples")
  void validExamplesPassTheSchemaAndTheReader(Path example) throws IOException {
    byte[] bytes = Files.readAllBytes(example);

    Set<ValidationMessage> errors = schema().validate(AxJson.MAPPER.readTree(bytes));
    CommandReadResult result = READER.read(bytes);

    assertThat(errors).as("schema errors of %s", example).isEmpty();
    assertThat(result)
        .as("reader result of %s", example)
        .isInstanceOf(CommandReadResult.Accepted.class);
  }

  @ParameterizedTest
  @MethodSource("invalidExamples")
  void invalidExamplesAreRejectedWithAReason(Path example) throws IOException {
    byte[] bytes = Files.readAllBytes(example);

    CommandReadResult result = READER.read(bytes);

    assertThat(result)
        .as("reader result of %s", example)
        .isInstanceOf(CommandReadResult.Rejected.class);
    assertThat(((CommandReadResult.Rejected) result).reason()).isNotBlank();
    JsonNode node = parseOrNull(bytes);
    if (node != null) {
      assertThat(schema().validate(node)).as("schema errors of %s", example).isNotEmpty();
    }
  }

  private static JsonSchema schema() throws IOException {
    JsonNode schemaNode =
        AxJson.MAPPER.readTree(CONTRACT.resolve("task-command.schema.json").toFile());
    return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(schemaNode);
  }

  private static JsonNode parseOrNull(byte[] bytes) {
    try {
      return AxJson.MAPPER.readTree(bytes);
    } catch (IOException e) {
      return null;
    }
  }

  private static Stream<Path> list(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      List<Path> sorted = files.filter(p -> p.toString().endsWith(".json")).sorted().toList();
      assertThat(sorted).as("examples in %s", dir).isNotEmpty();
      return sorted.stream();
    }
  }
}
