package dev.ax.common.contract;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.Namespace;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.time.Clock;
import dev.ax.common.trace.TraceIds;
import dev.ax.common.trace.Traceparent;
import java.io.IOException;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the bytes of one message from {@code ax.task.commands} into a {@link TaskCommand} or a
 * rejection reason. Never throws, for any bytes: every way a producer can get a message wrong is an
 * expected outcome here, and a bug in the reader itself becomes a rejection too (logged), so no
 * message can stop ingest.
 *
 * <p>JSON is read strictly: one value per message (trailing data is rejected), no duplicate keys,
 * and Jackson's stream limits (document length, string length, nesting depth, number length) set
 * from the {@link IntakeLimits}, which also bound every field (see README.md). Due times are judged
 * against the injected clock.
 *
 * <p>Thread-safe: the mapper is configured once and immutable, and each read keeps its state on the
 * stack.
 */
public final class CommandReader {

  private static final Logger log = LoggerFactory.getLogger(CommandReader.class);

  /** Covers UUIDs and W3C trace ids (32 hex digits); nothing that can break a log line. */
  static final Pattern TRACE_ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

  /** The longest reason a lifecycle command may give (it goes into audit rows and log lines). */
  static final int MAX_REASON_LENGTH = 500;

  /** The longest object key: every key AX reads is short; params keys are environment names. */
  static final int MAX_NAME_CHARS = 1024;

  private final Duration defaultTimeout;
  private final IntakeLimits limits;
  private final Clock clock;
  private final ObjectMapper mapper;

  /**
   * @param defaultTimeout the timeout of a task that sets none
   * @param limits the bounds on every field
   * @param clock "now" for due-time bounds (the stage's clock)
   */
  public CommandReader(Duration defaultTimeout, IntakeLimits limits, Clock clock) {
    this.defaultTimeout = defaultTimeout;
    this.limits = limits;
    this.clock = clock;
    this.mapper = strictMapper(limits);
  }

  /**
   * The mapper for producers' commands. AX's own events keep {@link AxJson#MAPPER}: AX's writer
   * cannot produce duplicate keys or trailing data, and the hot paths that read them need not pay
   * for the checks. Trailing data is checked by {@link #trailingData} rather than by Jackson's
   * {@code FAIL_ON_TRAILING_TOKENS}, so that anything after the value, a second object or bytes
   * that are not JSON, gives the same reason.
   */
  private static ObjectMapper strictMapper(IntakeLimits limits) {
    JsonFactory factory =
        JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .streamReadConstraints(
                StreamReadConstraints.builder()
                    .maxDocumentLength(limits.maxCommandBytes())
                    .maxStringLength(limits.maxCommandBytes())
                    .maxNameLength(MAX_NAME_CHARS)
                    .maxNestingDepth(limits.maxNestingDepth())
                    .maxNumberLength(limits.maxNumberChars())
                    .build())
            .build();
    return JsonMapper.builder(factory)
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .disable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .build();
  }

  /**
   * The longest reason a rejection carries. Each echoed value is capped by {@link Echo}; a reason
   * that quotes two of them (a cron expression and Quartz's complaint) stays well under this, and
   * this cap makes the bound hold whatever a future reason quotes.
   */
  public static final int MAX_REASON_CHARS = 1000;

  public CommandReadResult read(byte[] bytes) {
    return read(bytes, null);
  }

  /**
   * @param traceparentHeader the record's {@code traceparent} header, or null: the trace the
   *     command continues when its JSON names none
   */
  public CommandReadResult read(byte[] bytes, String traceparentHeader) {
    CommandReadResult result = readGuarded(bytes, traceparentHeader);
    if (result instanceof CommandReadResult.Rejected rejected
        && rejected.reason().length() > MAX_REASON_CHARS) {
      return new CommandReadResult.Rejected(
          rejected.reason().substring(0, MAX_REASON_CHARS) + "...");
    }
    return result;
  }

  private CommandReadResult readGuarded(byte[] bytes, String traceparentHeader) {
    try {
      return readUnguarded(bytes, traceparentHeader);
    } catch (RuntimeException e) {
      // A bug here, not a bad message: logged in full, and the message is rejected, not retried.
      log.warn("Reader failed on a command; rejecting it", e);
      return new CommandReadResult.Rejected(
          "internal error reading command: " + Echo.cut(e.toString()));
    }
  }

  private CommandReadResult readUnguarded(byte[] bytes, String traceparentHeader) {
    if (bytes == null || bytes.length == 0) {
      return new CommandReadResult.Rejected("empty message");
    }
    if (bytes.length > limits.maxCommandBytes()) {
      return new CommandReadResult.Rejected(
          "command is "
              + bytes.length
              + " bytes; at most "
              + limits.maxCommandBytes()
              + " (AX_MAX_COMMAND_BYTES)");
    }
    if (notUtf8(bytes)) {
      return new CommandReadResult.Rejected(
          "a command must be UTF-8 JSON (this looks like UTF-16 or UTF-32, or binary)");
    }
    JsonNode root;
    try (JsonParser parser = mapper.createParser(bytes)) {
      root = mapper.readTree(parser);
      if (root != null && trailingData(parser)) {
        return new CommandReadResult.Rejected(
            "trailing data after the JSON value: a message holds exactly one command");
      }
    } catch (IOException e) {
      return new CommandReadResult.Rejected("malformed JSON: " + Echo.cut(firstLine(e)));
    }
    if (root == null || !root.isObject()) {
      return new CommandReadResult.Rejected("a command must be a JSON object");
    }
    try {
      return new CommandReadResult.Accepted(readCommand(root, traceparentHeader));
    } catch (InvalidFieldException e) {
      return new CommandReadResult.Rejected(e.getMessage());
    }
  }

  /**
   * True when the first bytes show another encoding. Jackson detects UTF-16 and UTF-32 (by a byte
   * order mark or zero bytes among the first four) and would read them; the contract is UTF-8, as
   * RFC 8259 requires between systems, and no UTF-8 JSON text has a zero byte there.
   */
  private static boolean notUtf8(byte[] bytes) {
    int first = bytes[0] & 0xff;
    if (first == 0xfe || first == 0xff) {
      return true;
    }
    for (int i = 0; i < Math.min(4, bytes.length); i++) {
      if (bytes[i] == 0) {
        return true;
      }
    }
    return false;
  }

  /** True when anything but whitespace follows the first value, even bytes that are not JSON. */
  private static boolean trailingData(JsonParser parser) {
    try {
      return parser.nextToken() != null;
    } catch (IOException e) {
      return true;
    }
  }

  private TaskCommand readCommand(JsonNode root, String traceparentHeader) {
    long version = JsonFields.requireLong(root, "v");
    if (version < 1 || version > AxJson.VERSION) {
      throw new InvalidFieldException(
          "unsupported contract version v="
              + version
              + " (this AX reads 1.."
              + AxJson.VERSION
              + ")");
    }
    String typeText = JsonFields.optionalText(root, "type", "CREATE").toUpperCase(Locale.ROOT);
    CommandType type = JsonFields.constantNamed(CommandType.class, typeText, "command type");
    String group = targetGroup(root, type);
    String taskId = group == null ? JsonFields.requireText(root, "taskId") : null;
    if (taskId != null && taskId.indexOf(Namespace.SEPARATOR) >= 0) {
      throw new InvalidFieldException(CrossNamespace.reason("taskId", taskId));
    }
    if (taskId != null && !TaskSpecJson.TASK_ID.matcher(taskId).matches()) {
      throw new InvalidFieldException(
          "taskId must match " + TaskSpecJson.TASK_ID.pattern() + ": " + Echo.of(taskId));
    }
    String traceId = traceIdOf(root, traceparentHeader);
    TaskSpec spec = null;
    if (type == CommandType.CREATE || type == CommandType.UPDATE) {
      spec = TaskSpecJson.read(taskId, root, defaultTimeout, IntakeCheck.of(limits, clock.now()));
    }
    String flowRunId = null;
    Long upstreamSucceededAtMs = null;
    if (type == CommandType.TRIGGER) {
      flowRunId = flowRunIdOf(root);
      if (root.hasNonNull("upstreamSucceededAtMs")) {
        upstreamSucceededAtMs = JsonFields.requireLong(root, "upstreamSucceededAtMs");
        if (upstreamSucceededAtMs < 0) {
          throw new InvalidFieldException(
              "upstreamSucceededAtMs must not be negative: " + upstreamSucceededAtMs);
        }
      }
    }
    String commandId = null;
    String reason = null;
    if (type != CommandType.CREATE && type != CommandType.TRIGGER) {
      commandId = JsonFields.optionalText(root, "commandId", null);
      if (commandId != null && !TRACE_ID.matcher(commandId).matches()) {
        throw new InvalidFieldException(
            "commandId must match " + TRACE_ID.pattern() + ": " + Echo.of(commandId));
      }
      reason = JsonFields.optionalText(root, "reason", null);
      if (reason != null && reason.length() > MAX_REASON_LENGTH) {
        throw new InvalidFieldException(
            "reason must be at most " + MAX_REASON_LENGTH + " characters: " + Echo.of(reason));
      }
      if (reason != null && reason.chars().anyMatch(Character::isISOControl)) {
        // It goes into audit rows and log lines: a newline in it would forge a log line.
        throw new InvalidFieldException(
            "reason must be one line without control characters: " + Echo.of(reason));
      }
    }
    boolean interrupt = JsonFields.optionalBoolean(root, "interrupt", "interrupt", false);
    if (interrupt && type != CommandType.CANCEL && type != CommandType.DELETE) {
      throw new InvalidFieldException("interrupt is only for CANCEL and DELETE, not " + type);
    }
    return new TaskCommand(
        (int) version,
        type,
        taskId,
        group,
        spec,
        traceId,
        spec != null && !root.hasNonNull("timeoutMs"),
        flowRunId,
        commandId,
        reason,
        interrupt,
        upstreamSucceededAtMs);
  }

  /**
   * The trace the command belongs to: its {@code traceId}, else the trace of its {@code
   * traceparent} (the field, else the record's header), else a new one.
   */
  private static String traceIdOf(JsonNode root, String traceparentHeader) {
    String traceId = JsonFields.optionalText(root, "traceId", null);
    if (traceId != null && !TRACE_ID.matcher(traceId).matches()) {
      // It goes into log lines and headers: a newline in it would forge a log line.
      throw new InvalidFieldException(
          "traceId must match " + TRACE_ID.pattern() + ": " + Echo.of(traceId));
    }
    String traceparentText = JsonFields.optionalText(root, "traceparent", traceparentHeader);
    if (traceparentText == null) {
      return traceId == null ? TraceIds.newTraceId() : traceId;
    }
    Traceparent traceparent =
        Traceparent.parse(traceparentText)
            .orElseThrow(
                () ->
                    new InvalidFieldException(
                        "traceparent must be a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>,"
                            + " lower case, ids not all zero): "
                            + Echo.of(traceparentText)));
    if (traceId != null && !traceId.equals(traceparent.traceId())) {
      throw new InvalidFieldException(
          "traceId "
              + Echo.of(traceId)
              + " and traceparent name different traces; give one, or the same trace id");
    }
    return traceparent.traceId();
  }

  /** A TRIGGER's flow run: bounded, and not naming another namespace. */
  private static String flowRunIdOf(JsonNode root) {
    String flowRunId = JsonFields.requireText(root, "flowRunId");
    if (flowRunId.indexOf(Namespace.SEPARATOR) >= 0) {
      throw new InvalidFieldException(CrossNamespace.reason("flowRunId", flowRunId));
    }
    if (flowRunId.length() > InstanceIds.MAX_LENGTH) {
      throw new InvalidFieldException(
          "flowRunId must be at most " + InstanceIds.MAX_LENGTH + " characters");
    }
    return flowRunId;
  }

  /**
   * The group a PAUSE or RESUME names instead of a task, or null when the command names a task.
   * Exactly one of {@code taskId} and {@code group} is given to those two; the other types take a
   * {@code taskId} (a CREATE's or UPDATE's {@code group} is its spec's, read there). The group is
   * checked as a task's is.
   */
  private String targetGroup(JsonNode root, CommandType type) {
    boolean hasTaskId = root.hasNonNull("taskId");
    boolean hasGroup = root.hasNonNull("group");
    if (!type.takesGroup()) {
      if (!hasTaskId && hasGroup && type != CommandType.CREATE && type != CommandType.UPDATE) {
        throw new InvalidFieldException(
            "a group is only for PAUSE and RESUME: " + type + " takes a taskId");
      }
      return null;
    }
    if (hasTaskId == hasGroup) {
      throw new InvalidFieldException(
          type
              + " takes exactly one of taskId (one task) and group (every task of a group), "
              + (hasTaskId ? "not both" : "got neither"));
    }
    if (!hasGroup) {
      return null;
    }
    String group = JsonFields.requireText(root, "group");
    if (group.indexOf(Namespace.SEPARATOR) >= 0) {
      throw new InvalidFieldException(CrossNamespace.reason("group", group));
    }
    if (!TaskSpecJson.GROUP.matcher(group).matches()) {
      throw new InvalidFieldException(
          "group must match " + TaskSpecJson.GROUP.pattern() + ": " + Echo.of(group));
    }
    IntakeCheck.of(limits, clock.now()).group(group);
    return group;
  }

  /** Jackson's message without its location (which may quote the input), first line only. */
  private static String firstLine(IOException e) {
    String message =
        e instanceof JsonProcessingException jackson
            ? jackson.getOriginalMessage()
            : e.getMessage();
    if (message == null) {
      return e.getClass().getSimpleName();
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
