package dev.ax.common.contract;

import java.time.Duration;

/**
 * Every bound ingest puts on what a producer may ask for in one command: its size, how far its due
 * times may lie ahead or behind, how often it may fire, how long it may back off, and how many
 * entries each of its maps and lists may hold. Nothing a producer sends is unbounded: each bound
 * here is one line of the table in README.md ("Submitting a task from any Kafka client") and, with
 * its default, one constraint of {@code docs/contract/task-command.schema.json}.
 *
 * <p>The first four bounds are configuration (ingest's {@code IngestConfig} sets them); the others
 * are constants named here, with the reason for each. They are applied when a command is read
 * ({@link CommandReader}), never when a stored spec is read back: a spec AX accepted stays readable
 * after a bound is tightened.
 *
 * <p>Immutable and thread-safe.
 *
 * @param maxCommandBytes the largest record value read at all ({@code AX_MAX_COMMAND_BYTES})
 * @param maxHorizon how far ahead a due time may be ({@code AX_MAX_HORIZON})
 * @param maxPast how far back an absolute due time may be ({@code AX_MAX_PAST})
 * @param minInterval the shortest interval, and the shortest gap of a cron ({@code
 *     AX_MIN_INTERVAL})
 * @param maxInterval the longest FIXED_RATE / FIXED_DELAY interval
 * @param maxCronChars the longest cron expression
 * @param maxBackoff the longest retry backoff (base or max)
 * @param maxParams entries of {@code params}
 * @param maxParamsBytes UTF-8 bytes of all keys and values of {@code params}
 * @param maxHeaders entries of an HTTP executor's {@code headers}
 * @param maxHeadersBytes UTF-8 bytes of all names and values of {@code headers}
 * @param maxBodyBytes UTF-8 bytes of an HTTP executor's {@code body}
 * @param maxUrlChars characters of an HTTP executor's {@code url}
 * @param maxArgs entries of a SHELL executor's {@code args}
 * @param maxArgChars characters of one of the {@code args}
 * @param maxUpstream entries of a DEPENDENCY trigger's {@code upstream}
 * @param maxNestingDepth JSON nesting depth of the whole command (objects and arrays)
 * @param maxNumberChars characters of one JSON number
 */
public record IntakeLimits(
    int maxCommandBytes,
    Duration maxHorizon,
    Duration maxPast,
    Duration minInterval,
    Duration maxInterval,
    int maxCronChars,
    Duration maxBackoff,
    int maxParams,
    int maxParamsBytes,
    int maxHeaders,
    int maxHeadersBytes,
    int maxBodyBytes,
    int maxUrlChars,
    int maxArgs,
    int maxArgChars,
    int maxUpstream,
    int maxNestingDepth,
    int maxNumberChars) {

  /**
   * A command is a small document; 256 KiB holds the largest body, params and headers below with
   * room to spare, and stays well under Kafka's default 1 MiB record.
   */
  public static final int DEFAULT_MAX_COMMAND_BYTES = 256 * 1024;

  /** Ten years (3650 days): further ahead is a unit mistake (seconds sent as ms), not a plan. */
  public static final Duration DEFAULT_MAX_HORIZON = Duration.ofDays(3650);

  /**
   * One day: a command delayed in a backlog still fires (at once, like any ONCE due in the past); a
   * due time further back is a mistake (a zero or a wrong epoch).
   */
  public static final Duration DEFAULT_MAX_PAST = Duration.ofDays(1);

  /** One second: Quartz's granularity, so by default every cron expression is allowed. */
  public static final Duration DEFAULT_MIN_INTERVAL = Duration.ofSeconds(1);

  /** A leap year: a longer period is better written as a cron expression or a ONCE. */
  public static final Duration DEFAULT_MAX_INTERVAL = Duration.ofDays(366);

  /** Real expressions are under 100 characters; a longer one only costs Quartz parse time. */
  public static final int DEFAULT_MAX_CRON_CHARS = 256;

  /** Retried attempts must come back within a day; anything later is a dead letter in practice. */
  public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofHours(24);

  /** Params travel on every due event and into the executor's environment: keep them few. */
  public static final int DEFAULT_MAX_PARAMS = 64;

  public static final int DEFAULT_MAX_PARAMS_BYTES = 16 * 1024;

  /** Header counts and sizes that common HTTP servers accept (8 KiB per header block). */
  public static final int DEFAULT_MAX_HEADERS = 32;

  public static final int DEFAULT_MAX_HEADERS_BYTES = 8 * 1024;

  /** 64 KiB: a webhook payload, not a file transfer. */
  public static final int DEFAULT_MAX_BODY_BYTES = 64 * 1024;

  /** What browsers and proxies reliably carry. */
  public static final int DEFAULT_MAX_URL_CHARS = 2048;

  /** A script's arguments, well under the kernel's ARG_MAX. */
  public static final int DEFAULT_MAX_ARGS = 64;

  public static final int DEFAULT_MAX_ARG_CHARS = 4096;

  /** A join of more upstreams than this is a flow that wants a different shape. */
  public static final int DEFAULT_MAX_UPSTREAM = 100;

  /** The deepest command AX reads is 3 levels; 32 leaves room for a nested body. */
  public static final int DEFAULT_MAX_NESTING_DEPTH = 32;

  /** A long has at most 20 characters; 100 leaves room for a float in a body. */
  public static final int DEFAULT_MAX_NUMBER_CHARS = 100;

  public static final IntakeLimits DEFAULTS =
      new IntakeLimits(
          DEFAULT_MAX_COMMAND_BYTES,
          DEFAULT_MAX_HORIZON,
          DEFAULT_MAX_PAST,
          DEFAULT_MIN_INTERVAL,
          DEFAULT_MAX_INTERVAL,
          DEFAULT_MAX_CRON_CHARS,
          DEFAULT_MAX_BACKOFF,
          DEFAULT_MAX_PARAMS,
          DEFAULT_MAX_PARAMS_BYTES,
          DEFAULT_MAX_HEADERS,
          DEFAULT_MAX_HEADERS_BYTES,
          DEFAULT_MAX_BODY_BYTES,
          DEFAULT_MAX_URL_CHARS,
          DEFAULT_MAX_ARGS,
          DEFAULT_MAX_ARG_CHARS,
          DEFAULT_MAX_UPSTREAM,
          DEFAULT_MAX_NESTING_DEPTH,
          DEFAULT_MAX_NUMBER_CHARS);

  public IntakeLimits {
    positive("maxCommandBytes", maxCommandBytes);
    positive("maxHorizon", maxHorizon);
    if (maxPast.isNegative()) {
      throw new IllegalArgumentException("maxPast must not be negative: " + maxPast);
    }
    positive("minInterval", minInterval);
    if (maxInterval.compareTo(minInterval) < 0) {
      throw new IllegalArgumentException(
          "maxInterval must be at least minInterval: " + maxInterval + " < " + minInterval);
    }
    positive("maxCronChars", maxCronChars);
    positive("maxBackoff", maxBackoff);
    positive("maxParams", maxParams);
    positive("maxParamsBytes", maxParamsBytes);
    positive("maxHeaders", maxHeaders);
    positive("maxHeadersBytes", maxHeadersBytes);
    positive("maxBodyBytes", maxBodyBytes);
    positive("maxUrlChars", maxUrlChars);
    positive("maxArgs", maxArgs);
    positive("maxArgChars", maxArgChars);
    positive("maxUpstream", maxUpstream);
    positive("maxNestingDepth", maxNestingDepth);
    positive("maxNumberChars", maxNumberChars);
  }

  public IntakeLimits withMaxCommandBytes(int bytes) {
    return withConfigurable(bytes, maxHorizon, maxPast, minInterval);
  }

  public IntakeLimits withMaxHorizon(Duration horizon) {
    return withConfigurable(maxCommandBytes, horizon, maxPast, minInterval);
  }

  public IntakeLimits withMaxPast(Duration past) {
    return withConfigurable(maxCommandBytes, maxHorizon, past, minInterval);
  }

  public IntakeLimits withMinInterval(Duration interval) {
    return withConfigurable(maxCommandBytes, maxHorizon, maxPast, interval);
  }

  /** These limits with the four configurable bounds replaced; the constants stay. */
  /** These limits with the four configurable bounds replaced (ingest's configuration). */
  public IntakeLimits withConfigurable(
      int commandBytes, Duration horizon, Duration past, Duration interval) {
    return new IntakeLimits(
        commandBytes,
        horizon,
        past,
        interval,
        maxInterval,
        maxCronChars,
        maxBackoff,
        maxParams,
        maxParamsBytes,
        maxHeaders,
        maxHeadersBytes,
        maxBodyBytes,
        maxUrlChars,
        maxArgs,
        maxArgChars,
        maxUpstream,
        maxNestingDepth,
        maxNumberChars);
  }

  private static void positive(String name, long value) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " must be positive: " + value);
    }
  }

  private static void positive(String name, Duration value) {
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be positive: " + value);
    }
  }
}
