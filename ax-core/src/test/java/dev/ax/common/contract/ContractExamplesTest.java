package dev.ax.common.contract;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import dev.ax.common.time.SettableClock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The published schema and examples (docs/contract) agree with what the reader accepts. Every file
 * in {@code examples/invalid} (any name, any bytes) must be rejected by the reader from its bytes
 * alone, and by the schema too unless the schema cannot say why (listed below).
 */
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

  /** The longest reason an example may get: a reason must fit a header and a log line. */
  private static final int MAX_REASON_CHARS = 300;

  /**
   * Invalid examples that are well-formed JSON the schema accepts, each with what only AX can
   * check. Every other invalid example that parses must fail the schema as well.
   */
  private static final Map<String, String> BEYOND_THE_SCHEMA =
      Map.ofEntries(
          Map.entry("once-at-epoch.json", "an ISO instant relative to now (AX_MAX_PAST)"),
          Map.entry("once-at-year-9999.json", "an ISO instant relative to now (AX_MAX_HORIZON)"),
          Map.entry("fixed-rate-startat-epoch.json", "an ISO instant relative to now"),
          Map.entry("fixed-rate-startat-year-9999.json", "an ISO instant relative to now"),
          Map.entry("fixed-delay-startat-epoch.json", "an ISO instant relative to now"),
          Map.entry("fixed-delay-startat-year-9999.json", "an ISO instant relative to now"),
          Map.entry("once-at-not-an-instant.json", "the schema's format is an annotation only"),
          Map.entry("cron-not-quartz.json", "Quartz syntax"),
          Map.entry("cron-five-fields.json", "Quartz syntax"),
          Map.entry("cron-no-date.json", "a cron expression that matches no date"),
          Map.entry("cron-bad-zone.json", "that an IANA zone exists"),
          Map.entry(
              "cron-first-fires-beyond-horizon.json", "a cron's first firing relative to now"),
          Map.entry("retry-max-below-base.json", "one field compared with another"),
          Map.entry("trigger-command-without-flow-run.json", "flowRunId required for TRIGGER"),
          // By JSON Schema 1e400 is an integer above the maximum; the validator used here compares
          // its low 64 bits (0) instead. Where a minimum is above 0 the example fails all the same.
          Map.entry("once-delay-1e400.json", "a validator gap, see above"),
          Map.entry("retry-max-retries-1e400.json", "a validator gap, see above"));

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

    Set<ValidationMessage> errors = schema().validate(strictParse(bytes));
    CommandReadResult result = READER.read(bytes);

    assertThat(errors).as("schema errors of %s", example).isEmpty();
    assertThat(result)
        .as("reader result of %s", example)
        .isInstanceOf(CommandReadResult.Accepted.class);
  }

  @ParameterizedTest
  @MethodSource("invalidExamples")
  void invalidExamplesAreRejectedWithAShortReason(Path example) throws IOException {
    byte[] bytes = Files.readAllBytes(example);

    CommandReadResult result = READER.read(bytes);

    assertThat(result)
        .as("reader result of %s", example)
        .isInstanceOf(CommandReadResult.Rejected.class);
    String reason = ((CommandReadResult.Rejected) result).reason();
    assertThat(reason).as("reason for %s", example).isNotBlank().doesNotStartWith("internal");
    assertThat(reason.length())
        .as("length of the reason for %s", example)
        .isLessThanOrEqualTo(MAX_REASON_CHARS);
  }

  @ParameterizedTest
  @MethodSource("invalidExamples")
  void invalidExamplesThatParseFailTheSchemaToo(Path example) throws IOException {
    JsonNode node = strictParseOrNull(Files.readAllBytes(example));
    String name = example.getFileName().toString();
    if (node == null) {
      return; // not one JSON value: rejected before any schema applies
    }

    Set<ValidationMessage> errors = schema().validate(node);

    if (BEYOND_THE_SCHEMA.containsKey(name)) {
      assertThat(errors).as("schema errors of %s, listed as beyond the schema", example).isEmpty();
    } else {
      assertThat(errors).as("schema errors of %s", example).isNotEmpty();
    }
  }

  @Test
  void everyExampleListedAsBeyondTheSchemaExists() throws IOException {
    List<String> names = invalidExamples().map(p -> p.getFileName().toString()).toList();

    assertThat(names).containsAll(BEYOND_THE_SCHEMA.keySet());
  }

  /** Too large to commit: a command of about 1 MiB, made here. */
  @Test
  void aCommandOfAMegabyteIsRejectedForItsSize() {
    String padding = "p".repeat(1024 * 1024);
    byte[] huge =
        ("{\"v\":1,\"taskId\":\"huge\",\"trigger\":{\"type\":\"ONCE\",\"delayMs\":10},"
                + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"},"
                + "\"params\":{\"p\":\""
                + padding
                + "\"}}")
            .getBytes(StandardCharsets.UTF_8);

    CommandReadResult result = READER.read(huge);

    assertThat(result)
        .isEqualTo(
            new CommandReadResult.Rejected(
                "command is " + huge.length + " bytes; at most 262144 (AX_MAX_COMMAND_BYTES)"));
  }

  private static JsonSchema schema() throws IOException {
    JsonNode schemaNode =
        AxJson.MAPPER.readTree(CONTRACT.resolve("task-command.schema.json").toFile());
    return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(schemaNode);
  }

  /**
   * One JSON value with no duplicate keys and nothing after it, as the reader wants. Floats are
   * read exactly, so that {@code 1e400} is a number the schema can compare, not infinity.
   */
  private static final ObjectMapper STRICT =
      JsonMapper.builder()
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .build();

  private static JsonNode strictParse(byte[] bytes) throws IOException {
    return STRICT.readTree(bytes);
  }

  /** Null for what is not one JSON value in UTF-8 (Jackson alone would also read UTF-16). */
  private static JsonNode strictParseOrNull(byte[] bytes) {
    try {
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes));
    } catch (CharacterCodingException e) {
      return null;
    }
    try {
      JsonNode node = STRICT.readTree(bytes);
      return node == null || node.isMissingNode() ? null : node;
    } catch (IOException e) {
      return null;
    }
  }

  /** Every file, whatever its name: the directory holds examples only. */
  private static Stream<Path> list(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      List<Path> sorted = files.filter(Files::isRegularFile).sorted().toList();
      assertThat(sorted).as("examples in %s", dir).isNotEmpty();
      return sorted.stream();
    }
  }
}
