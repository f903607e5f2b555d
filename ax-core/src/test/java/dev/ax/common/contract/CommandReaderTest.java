package dev.ax.common.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.ExecutorType;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.time.SettableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CommandReaderTest {

  private final SettableClock clock = new SettableClock(Instant.parse("2026-06-01T00:00:00Z"));
  private final CommandReader reader =
      new CommandReader(Duration.ofSeconds(60), IntakeLimits.DEFAULTS, clock);

  private CommandReadResult read(String json) {
    return reader.read(json.getBytes(StandardCharsets.UTF_8));
  }

  private String reasonOf(String json) {
    CommandReadResult result = read(json);
    assertThat(result).isInstanceOf(CommandReadResult.Rejected.class);
    return ((CommandReadResult.Rejected) result).reason();
  }

  @Test
  void aNameAndADescriptionAreReadKeptAndWrittenBack() {
    CommandReadResult result =
        read(
            """
            {"v":1,"taskId":"t-1","name":"Nightly report","description":"Line one\\nLine two",
             "trigger":{"type":"ONCE","delayMs":1000},
             "executor":{"type":"IN_PROCESS","handler":"noop"},"timeoutMs":1500}
            """);
    TaskSpec spec = ((CommandReadResult.Accepted) result).command().spec();
    assertThat(spec.name()).isEqualTo("Nightly report");
    assertThat(spec.description()).isEqualTo("Line one\nLine two");
    TaskSpec stored = TaskSpecJson.readStored("t-1", TaskSpecJson.write(spec).toString());
    assertThat(stored).isEqualTo(spec);
    assertThat(
            TaskSpecJson.write(
                    TaskSpecJson.readStored(
                        "t-1",
                        "{\"group\":\"default\","
                            + "\"trigger\":{\"type\":\"ONCE\",\"delayMs\":1},"
                            + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"}}"))
                .has("name"))
        .as("a task without a name is written without one")
        .isFalse();
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
    ExecutorSpec.Http http = (ExecutorSpec.Http) spec.executor();
    assertThat(http.method()).isEqualTo("PUT");
    assertThat(http.body()).isEqualTo("{\"k\":1}");
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
    assertThat(trigger.upstreamSucceededAtMs()).as("absent").isNull();
    String timed =
        "{\"v\":1,\"type\":\"TRIGGER\",\"taskId\":\"report\",\"flowRunId\":\"a@1\","
            + "\"upstreamSucceededAtMs\":";
    assertThat(((CommandReadResult.Accepted) read(timed + "1700000000000}")).command())
        .extracting(TaskCommand::upstreamSucceededAtMs)
        .isEqualTo(1_700_000_000_000L);
    assertThat(reasonOf(timed + "-1}")).contains("upstreamSucceededAtMs must not be negative");
    assertThat(reasonOf(timed + "\"soon\"}")).contains("upstreamSucceededAtMs");
    assertThat(reasonOf(timed + "1e400}")).contains("upstreamSucceededAtMs");

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
        "{\"v\":1,\"taskId\":\"x\"} {}|trailing data after the JSON value",
        "{\"v\":1,\"taskId\":\"x\"}{\"v\":1,\"taskId\":\"y\"}|trailing data after the JSON value",
        "{\"v\":1,\"taskId\":\"x\"} garbage|trailing data after the JSON value",
        "{\"v\":1,\"taskId\":\"x\",\"taskId\":\"y\"}|Duplicate field 'taskId'",
        "\"a string\"|must be a JSON object",
        "null|must be a JSON object",
        "'   '|must be a JSON object",
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

  // ---- Intake limits. The clock stands at 2026-06-01T00:00:00Z. ----

  private static final String NOOP = "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"}";
  private static final long DAY_MS = Duration.ofDays(1).toMillis();
  private static final long NOW_MS = Instant.parse("2026-06-01T00:00:00Z").toEpochMilli();

  private static String task(String fields) {
    return "{\"v\":1,\"taskId\":\"t\"," + fields + "}";
  }

  private static String once(String triggerFields) {
    return task("\"trigger\":{\"type\":\"ONCE\"," + triggerFields + "}," + NOOP);
  }

  private static String every(String type, String triggerFields) {
    return task("\"trigger\":{\"type\":\"" + type + "\"," + triggerFields + "}," + NOOP);
  }

  /** A one-shot task due in 1 ms with one more top-level field, e.g. {@code "traceId":"t"}. */
  private static String onceWith(String field) {
    return once("\"delayMs\":1").replace("}}", "}," + field + "}");
  }

  private void assertAccepted(String json) {
    assertThat(read(json)).as(json).isInstanceOf(CommandReadResult.Accepted.class);
  }

  /** Accepted when {@code reason} is null (an empty cell of a case table), else rejected for it. */
  private void assertAcceptedOrRejectedFor(String json, String reason) {
    if (reason == null) {
      assertAccepted(json);
    } else {
      assertThat(reasonOf(json)).contains(reason);
    }
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        // delayMs: 0 and the horizon itself are fine.
        "\"delayMs\":0|",
        "\"delayMs\":315360000000|",
        "\"delayMs\":315360000001|trigger.delayMs must be at most 315360000000 (3650 days, AX_MAX_HORIZON): 315360000001",
        "\"delayMs\":9223372036854775807|trigger.delayMs must be at most 315360000000",
        "\"delayMs\":-9223372036854775808|trigger.delayMs must not be negative",
        "\"delayMs\":9223372036854775808|field 'trigger.delayMs' must be an integer in the range of a 64-bit long",
        "\"delayMs\":1e400|field 'trigger.delayMs' must be an integer: got a number beyond any range (such as 1e400)",
        "\"delayMs\":5.0|field 'trigger.delayMs' must be an integer: 5.0",
        "\"delayMs\":\"5000\"|field 'trigger.delayMs' must be an integer, not a string: '5000'",
        "\"delayMs\":true|field 'trigger.delayMs' must be an integer",
        // at and atMs: a day back fires at once; further back, or beyond the horizon, is rejected.
        "\"at\":\"2026-05-31T00:00:00Z\"|",
        "\"at\":\"2036-05-29T00:00:00Z\"|",
        "\"at\":\"2026-05-30T23:59:59.999Z\"|trigger.at 2026-05-30T23:59:59.999Z is more than 1 day in the past (AX_MAX_PAST",
        "\"at\":\"2036-05-29T00:00:00.001Z\"|trigger.at 2036-05-29T00:00:00.001Z is more than 3650 days ahead (AX_MAX_HORIZON)",
        "\"at\":\"+999999999-12-31T23:59:59Z\"|more than 3650 days ahead",
        "\"atMs\":0|trigger.atMs 1970-01-01T00:00:00Z is more than 1 day in the past",
        "\"atMs\":-1|is more than 1 day in the past",
        "\"atMs\":9223372036854775807|is more than 3650 days ahead",
        "\"atMs\":-9223372036854775808|is more than 1 day in the past",
        "\"atMs\":1e400|field 'trigger.atMs' must be an integer",
        "\"atMs\":\"1780272000000\"|must be an integer, not a string",
      })
  void onceDueTimesAreBoundedByTheHorizonAndThePast(String triggerFields, String reason) {
    assertAcceptedOrRejectedFor(once(triggerFields), reason);
  }

  @Test
  void aOnceTaskDueInThePastIsAcceptedAndKeepsItsDueTime() {
    TaskCommand command =
        ((CommandReadResult.Accepted) read(once("\"atMs\":" + (NOW_MS - DAY_MS)))).command();

    // Ingest stores it due then, so it fires at once (FireTimes.first).
    assertThat(command.spec().trigger())
        .isEqualTo(Trigger.Once.at(Instant.ofEpochMilli(NOW_MS - DAY_MS)));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "FIXED_RATE|\"intervalMs\":1000|",
        "FIXED_DELAY|\"intervalMs\":31622400000|",
        "FIXED_RATE|\"intervalMs\":999|trigger.intervalMs must be in 1000..31622400000 (1 s (AX_MIN_INTERVAL) to 366 days): 999",
        "FIXED_RATE|\"intervalMs\":1|trigger.intervalMs must be in 1000..",
        "FIXED_DELAY|\"intervalMs\":1|trigger.intervalMs must be in 1000..",
        "FIXED_RATE|\"intervalMs\":31622400001|trigger.intervalMs must be in 1000..31622400000",
        "FIXED_RATE|\"intervalMs\":9223372036854775807|trigger.intervalMs must be in",
        "FIXED_DELAY|\"intervalMs\":9223372036854775806|trigger.intervalMs must be in",
        "FIXED_RATE|\"intervalMs\":0|trigger.intervalMs must be positive: 0",
        "FIXED_DELAY|\"intervalMs\":-1|trigger.intervalMs must be positive: -1",
        "FIXED_RATE|\"intervalMs\":1000.5|field 'trigger.intervalMs' must be an integer",
        "FIXED_RATE|\"intervalMs\":60000,\"startAtMs\":0|trigger.startAtMs 1970-01-01T00:00:00Z is more than 1 day in the past",
        "FIXED_DELAY|\"intervalMs\":60000,\"startAt\":\"9999-01-01T00:00:00Z\"|trigger.startAt 9999-01-01T00:00:00Z is more than 3650 days ahead",
        "FIXED_RATE|\"intervalMs\":60000,\"startAt\":\"2026-05-31T12:00:00Z\"|",
      })
  void intervalsAndStartTimesAreBounded(String type, String triggerFields, String reason) {
    assertAcceptedOrRejectedFor(every(type, triggerFields), reason);
  }

  @Test
  void aCronThatFiresMoreOftenThanTheMinimumIntervalIsRejected() {
    String everySecond = every("CRON", "\"expression\":\"* * * * * ?\"");
    String twoSecondsApartOnceADay = every("CRON", "\"expression\":\"0,2 0 0 * * ?\"");
    String everyFiveSeconds = every("CRON", "\"expression\":\"0/5 * * * * ?\"");
    CommandReader strict =
        new CommandReader(
            Duration.ofSeconds(60),
            IntakeLimits.DEFAULTS.withMinInterval(Duration.ofSeconds(5)),
            clock);

    assertAccepted(everySecond); // by default: Quartz cannot fire more often than every second
    assertThat(strict.read(bytes(everySecond)))
        .isEqualTo(
            new CommandReadResult.Rejected(
                "trigger.expression fires 1 s apart (at 2026-06-01T00:00:01Z and"
                    + " 2026-06-01T00:00:02Z), more often than every 5 s (AX_MIN_INTERVAL):"
                    + " '* * * * * ?'"));
    assertThat(strict.read(bytes(twoSecondsApartOnceADay)))
        .isInstanceOf(CommandReadResult.Rejected.class);
    assertThat(strict.read(bytes(everyFiveSeconds))).isInstanceOf(CommandReadResult.Accepted.class);
  }

  @Test
  void aCronThatFirstFiresBeyondTheHorizonIsRejected() {
    assertAccepted(every("CRON", "\"expression\":\"0 0 0 1 1 ? 2036\""));
    assertThat(reasonOf(every("CRON", "\"expression\":\"0 0 0 1 1 ? 2099\"")))
        .isEqualTo(
            "trigger.expression first fires at 2099-01-01T00:00:00Z, more than 3650 days ahead"
                + " (AX_MAX_HORIZON): '0 0 0 1 1 ? 2099'");
  }

  @Test
  void aReasonThatQuotesTwoValuesStaysUnderTheReasonCap() {
    String expression = ("0,1,2,3,4,5,6,7,8,9," + "x".repeat(300)).substring(0, 256);
    String reason = reasonOf(every("CRON", "\"expression\":\"" + expression + "\""));

    assertThat(reason).startsWith("trigger.expression is not a valid Quartz cron expression: ");
    assertThat(reason.length()).isLessThanOrEqualTo(CommandReader.MAX_REASON_CHARS);
  }

  @Test
  void aLongCronExpressionIsRejectedBeforeItIsParsed() {
    StringBuilder seconds = new StringBuilder("0");
    for (int i = 1; seconds.length() < 300; i++) {
      seconds.append(',').append(i % 60);
    }
    String json = every("CRON", "\"expression\":\"" + seconds + " * * * * ?\"");

    assertThat(reasonOf(json))
        .startsWith("trigger.expression must be at most 256 characters: '0,1,2");
    assertThat(reasonOf(json).length()).isLessThan(300);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "\"backoffBaseMs\":86400000,\"backoffMaxMs\":86400000|",
        "\"maxRetries\":0,\"backoffBaseMs\":1|",
        "\"backoffBaseMs\":0|retry.backoffBaseMs must be positive: 0",
        "\"backoffBaseMs\":-1|retry.backoffBaseMs must be positive: -1",
        "\"backoffBaseMs\":9223372036854775807|retry.backoffBaseMs must be at most 86400000 (1 day)",
        "\"backoffMaxMs\":9223372036854775807|retry.backoffMaxMs must be at most 86400000 (1 day)",
        "\"backoffBaseMs\":5000,\"backoffMaxMs\":1000|retry.backoffMaxMs must be at least retry.backoffBaseMs: 1000 < 5000",
        "\"maxRetries\":101|retry.maxRetries must be in 0..100: 101",
        "\"maxRetries\":-1|retry.maxRetries must be in 0..100: -1",
        "\"maxRetries\":9223372036854775807|retry.maxRetries must be in 0..100: 9223372036854775807",
        "\"maxRetries\":4294967297|retry.maxRetries must be in 0..100: 4294967297",
        "\"maxRetries\":3.0|field 'retry.maxRetries' must be an integer",
        "\"jitter\":\"false\"|field 'retry.jitter' must be a boolean",
      })
  void retryIsBounded(String retryFields, String reason) {
    assertAcceptedOrRejectedFor(onceWith("\"retry\":{" + retryFields + "}"), reason);
  }

  @Test
  void mapsListsAndTextsAreBounded() {
    assertAccepted(withParams(64, 10));
    assertThat(reasonOf(withParams(65, 1))).isEqualTo("params has 65 entries; at most 64");
    assertThat(reasonOf(withParams(2, 9000)))
        .startsWith("params must hold at most 16384 bytes of names and values (UTF-8): ");
    assertThat(reasonOf(http("\"headers\":" + object(33, 1))))
        .isEqualTo("executor.headers has 33 entries; at most 32");
    assertThat(reasonOf(http("\"headers\":" + object(2, 5000))))
        .startsWith("executor.headers must hold at most 8192 bytes");
    assertAccepted(http("\"body\":\"" + "b".repeat(65536) + "\""));
    assertThat(reasonOf(http("\"body\":\"" + "b".repeat(65537) + "\"")))
        .isEqualTo("executor.body must be at most 65536 bytes (UTF-8): 65537");
    assertThat(reasonOf(http("\"body\":{\"k\":\"" + "b".repeat(65536) + "\"}")))
        .startsWith("executor.body must be at most 65536 bytes");
    assertThat(
            reasonOf(
                task(
                    "\"trigger\":{\"type\":\"ONCE\",\"delayMs\":1},\"executor\":{\"type\":\"HTTP\",\"url\":\"http://h/"
                        + "p".repeat(3000)
                        + "\"}")))
        .startsWith("executor.url must be at most 2048 characters: 'http://h/ppp");
    assertThat(reasonOf(shell(strings(65, "a"))))
        .isEqualTo("executor.args has 65 entries; at most 64");
    assertThat(reasonOf(shell(strings(1, "a".repeat(4097)))))
        .startsWith("executor.args[0] must be at most 4096 characters: 'aaa");
    assertAccepted(dependency(100));
    assertThat(reasonOf(dependency(101)))
        .isEqualTo("trigger.upstream has 101 entries; at most 100");
    assertThat(reasonOf(dependency(1000)))
        .isEqualTo("trigger.upstream has 1000 entries; at most 100");
  }

  private static String withParams(int count, int valueChars) {
    return onceWith("\"params\":" + object(count, valueChars));
  }

  @Test
  void headersAreCheckedAtIntakeAndValuesAreNeverEchoed() {
    assertAccepted(http("\"headers\":{\"X-Api-Key\":\"k-1\\tk-2\"}"));
    assertThat(reasonOf(http("\"headers\":{\"X Api\":\"v\"}")))
        .startsWith("executor.headers: 'X Api' is not a header name");
    assertThat(reasonOf(http("\"headers\":{\"Host\":\"evil.example\"}")))
        .isEqualTo("executor.headers.Host is set by the HTTP client itself; leave it out");
    String split = reasonOf(http("\"headers\":{\"X-Token\":\"s3cret\\r\\nX-Admin: 1\"}"));
    assertThat(split)
        .startsWith("executor.headers.X-Token holds a control")
        .doesNotContain("s3cret");
    assertThat(reasonOf(http("\"headers\":{\"X-Token\":\"caf\u00e9\"}"))).contains("non-ASCII");
  }

  @Test
  void aUrlWithCredentialsIsRefusedWithoutThem() {
    String reason =
        reasonOf(
            task(
                "\"trigger\":{\"type\":\"ONCE\",\"delayMs\":1},\"executor\":{\"type\":\"HTTP\","
                    + "\"url\":\"https://olga:hunter2@jobs.example/run\"}"));
    assertThat(reason)
        .contains("must not carry credentials", "//****@jobs.example")
        .doesNotContain("hunter2");
    assertThat(
            reasonOf(
                task(
                    "\"trigger\":{\"type\":\"ONCE\",\"delayMs\":1},\"executor\":{\"type\":\"HTTP\","
                        + "\"url\":\"ftp://olga:hunter2@jobs.example/run\"}")))
        .doesNotContain("hunter2");
  }

  private static String http(String executorFields) {
    return task(
        "\"trigger\":{\"type\":\"ONCE\",\"delayMs\":1},\"executor\":{\"type\":\"HTTP\",\"url\":\"http://h/p\","
            + executorFields
            + "}");
  }

  private static String shell(String args) {
    return task(
        "\"trigger\":{\"type\":\"ONCE\",\"delayMs\":1},\"executor\":{\"type\":\"SHELL\",\"script\":\"s.sh\",\"args\":"
            + args
            + "}");
  }

  private static String dependency(int upstreams) {
    StringBuilder ids = new StringBuilder("[");
    for (int i = 0; i < upstreams; i++) {
      ids.append(i == 0 ? "" : ",").append("\"u").append(i).append('"');
    }
    return task("\"trigger\":{\"type\":\"DEPENDENCY\",\"upstream\":" + ids + "]}," + NOOP);
  }

  private static String object(int count, int valueChars) {
    StringBuilder out = new StringBuilder("{");
    for (int i = 0; i < count; i++) {
      out.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":\"");
      out.append("v".repeat(valueChars)).append('"');
    }
    return out.append('}').toString();
  }

  private static String strings(int count, String each) {
    StringBuilder out = new StringBuilder("[");
    for (int i = 0; i < count; i++) {
      out.append(i == 0 ? "" : ",").append('"').append(each).append('"');
    }
    return out.append(']').toString();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "\"traceId\":\"4bf92f3577b34da6a3ce929d0e0e4736\"|",
        "\"traceId\":\"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\"|",
        "\"traceId\":\"a b\"|traceId must match [A-Za-z0-9._:-]{1,128}: 'a b'",
        "\"traceId\":\"a\\nINFO forged line\"|traceId must match [A-Za-z0-9._:-]{1,128}: 'a\\u000aINFO forged line'",
        "\"traceId\":\"\"|traceId must match",
        "\"traceId\":7|field 'traceId' must be a string",
        "\"group\":\"__retry\"|group '__retry' is reserved: names starting with __ belong to AX",
        "\"group\":\"__\"|is reserved",
        "\"group\":\"_mine\"|",
      })
  void traceIdsAndGroupsAreChecked(String field, String reason) {
    assertAcceptedOrRejectedFor(onceWith(field), reason);
  }

  @Test
  void aTraceIdOf129CharactersIsRejected() {
    assertThat(reasonOf(onceWith("\"traceId\":\"" + "a".repeat(129) + "\"")))
        .startsWith("traceId must match");
  }

  @Test
  void everyEchoedValueIsCapped() {
    String hugeId = "a@".repeat(50_000);
    String reason = reasonOf("{\"v\":1,\"taskId\":\"" + hugeId + "\"}");

    assertThat(reason).startsWith("taskId must match").endsWith("(100000 characters)");
    assertThat(reason.length()).isLessThan(300);
    assertThat(reasonOf(http("\"method\":\"" + "X".repeat(10_000) + "\"")).length())
        .isLessThan(300);
  }

  @Test
  void aCommandLargerThanTheByteLimitIsRejectedBeforeParsing() {
    byte[] huge = new byte[1024 * 1024];
    java.util.Arrays.fill(huge, (byte) '[');

    assertThat(reader.read(huge))
        .isEqualTo(
            new CommandReadResult.Rejected(
                "command is 1048576 bytes; at most 262144 (AX_MAX_COMMAND_BYTES)"));
  }

  @Test
  void deepNestingIsRejectedByTheParser() {
    String deep = "[".repeat(1000) + "]".repeat(1000);
    String reason = reasonOf(onceWith("\"params\":{\"p\":" + deep + "}"));

    assertThat(reason).startsWith("malformed JSON: ").contains("nesting depth");
    assertThat(reason.length()).isLessThan(300);
  }

  @Test
  void aLongNumberIsRejectedByTheParser() {
    assertThat(reasonOf(once("\"delayMs\":" + "9".repeat(5000))))
        .startsWith("malformed JSON: ")
        .contains("Number value length");
  }

  @Test
  void aFailureInsideTheReaderBecomesARejectionNotAnException() {
    dev.ax.common.time.Clock broken =
        () -> {
          throw new IllegalStateException("clock unplugged");
        };
    CommandReader withBrokenClock =
        new CommandReader(Duration.ofSeconds(60), IntakeLimits.DEFAULTS, broken);

    assertThat(withBrokenClock.read(bytes(once("\"delayMs\":1"))))
        .isEqualTo(
            new CommandReadResult.Rejected(
                "internal error reading command: java.lang.IllegalStateException: clock unplugged"));
  }

  /**
   * No byte sequence makes read() throw: random bytes, and valid commands with bytes flipped,
   * dropped or cut, all give a result, and a rejection's reason is short.
   */
  @Test
  void neverThrowsForAnyBytes() {
    java.util.Random random = new java.util.Random(16);
    byte[] valid =
        bytes(
            """
            {"v":1,"taskId":"t","trigger":{"type":"FIXED_RATE","intervalMs":60000,"startAtMs":1780272000000},
             "executor":{"type":"HTTP","url":"https://h/p","headers":{"A":"b"},"body":{"k":[1,2.5,"x"]}},
             "retry":{"maxRetries":3,"backoffBaseMs":10,"backoffMaxMs":20},"params":{"n":1e3}}
            """);
    int accepted = 0;
    for (int i = 0; i < 20_000; i++) {
      byte[] input;
      if (i % 2 == 0) {
        input = new byte[random.nextInt(64)];
        random.nextBytes(input);
      } else {
        input = valid.clone();
        for (int flips = random.nextInt(3); flips >= 0; flips--) {
          input[random.nextInt(input.length)] = (byte) random.nextInt(256);
        }
        input = java.util.Arrays.copyOf(input, input.length - random.nextInt(4));
      }

      CommandReadResult result = reader.read(input);

      assertThat(result).isNotNull();
      if (result instanceof CommandReadResult.Rejected rejected) {
        assertThat(rejected.reason()).isNotBlank();
        assertThat(rejected.reason().length()).isLessThan(400);
        assertThat(rejected.reason()).doesNotStartWith("internal error");
      } else {
        accepted++;
      }
    }
    assertThat(reader.read(valid)).isInstanceOf(CommandReadResult.Accepted.class);
    assertThat(accepted).as("some mutations only touch a value and stay valid").isPositive();
  }

  @Test
  void aStoredSpecIsReadWithoutIntakeLimits() {
    String stored =
        """
        {"taskId":"old","group":"__retry","trigger":{"type":"ONCE","atMs":0},
         "executor":{"type":"IN_PROCESS","handler":"noop"},"timeoutMs":1000,
         "retry":{"maxRetries":1,"backoffBaseMs":1,"backoffMaxMs":172800000,"jitter":true}}
        """;

    TaskSpec spec = TaskSpecJson.readStored("old", stored);

    assertThat(spec.trigger()).isEqualTo(Trigger.Once.at(Instant.EPOCH));
    assertThat(spec.retry().backoffMax()).isEqualTo(Duration.ofDays(2));
  }

  private static byte[] bytes(String json) {
    return json.getBytes(StandardCharsets.UTF_8);
  }
}
