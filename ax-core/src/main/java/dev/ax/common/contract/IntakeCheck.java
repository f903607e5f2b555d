package dev.ax.common.contract;

import dev.ax.common.schedule.CronSchedule;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The {@link IntakeLimits} applied to one command read at one instant: each method throws {@link
 * InvalidFieldException} with the field, the value (through {@link Echo}) and the bound. {@link
 * #STORED} checks nothing, for specs read back from the database (they passed intake once, and must
 * stay readable after a bound is tightened or the clock moves past their due time).
 *
 * <p>Immutable; one per command read.
 *
 * @param limits the bounds
 * @param now the instant due times are checked against
 * @param enforced false for {@link #STORED}: every check passes
 */
record IntakeCheck(IntakeLimits limits, Instant now, boolean enforced) {

  /** An HTTP header name: an RFC 9110 token, at most 256 characters. */
  private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}");

  /** Headers the HTTP client sets itself and refuses from a caller. */
  private static final Set<String> CLIENT_HEADERS =
      Set.of("connection", "content-length", "expect", "host", "transfer-encoding", "upgrade");

  /**
   * Firings of a cron expression whose gaps are compared with the minimum interval. A heuristic: an
   * expression whose short gaps come only after this many firings passes. Every real expression
   * repeats its pattern within its first minute, hour or day, so 100 firings see it.
   */
  static final int CRON_GAP_SAMPLES = 100;

  /** Reserved for AX's own pools, such as {@code __retry} for retried attempts. */
  static final String RESERVED_GROUP_PREFIX = "__";

  static final IntakeCheck STORED = new IntakeCheck(IntakeLimits.DEFAULTS, Instant.EPOCH, false);

  static IntakeCheck of(IntakeLimits limits, Instant now) {
    return new IntakeCheck(limits, now, true);
  }

  void group(String group) {
    if (enforced && group.startsWith(RESERVED_GROUP_PREFIX)) {
      throw new InvalidFieldException(
          "group "
              + Echo.of(group)
              + " is reserved: names starting with "
              + RESERVED_GROUP_PREFIX
              + " belong to AX");
    }
  }

  /** {@code delayMs} is already known not to be negative. */
  void delay(long delayMs) {
    if (enforced && delayMs > limits.maxHorizon().toMillis()) {
      throw new InvalidFieldException(
          "trigger.delayMs must be at most "
              + limits.maxHorizon().toMillis()
              + " ("
              + describe(limits.maxHorizon())
              + ", AX_MAX_HORIZON): "
              + delayMs);
    }
  }

  /** An absolute due time: not beyond the horizon, and not further back than the past allows. */
  void dueAt(String path, Instant at) {
    if (!enforced) {
      return;
    }
    if (at.isAfter(now.plus(limits.maxHorizon()))) {
      throw tooFar(path, at, limits.maxHorizon(), "ahead (AX_MAX_HORIZON)");
    }
    if (at.isBefore(now.minus(limits.maxPast()))) {
      throw tooFar(
          path,
          at,
          limits.maxPast(),
          "in the past (AX_MAX_PAST; a due time less far back fires at once)");
    }
  }

  /** "{@code <path> <at> is more than <limit> <where>}". */
  private static InvalidFieldException tooFar(
      String path, Instant at, Duration limit, String where) {
    return new InvalidFieldException(
        path + " " + at + " is more than " + describe(limit) + " " + where);
  }

  /** {@code intervalMs} is already known to be positive. */
  void interval(long intervalMs) {
    if (!enforced) {
      return;
    }
    if (intervalMs < limits.minInterval().toMillis()
        || intervalMs > limits.maxInterval().toMillis()) {
      throw new InvalidFieldException(
          "trigger.intervalMs must be in "
              + limits.minInterval().toMillis()
              + ".."
              + limits.maxInterval().toMillis()
              + " ("
              + describe(limits.minInterval())
              + " (AX_MIN_INTERVAL) to "
              + describe(limits.maxInterval())
              + "): "
              + intervalMs);
    }
  }

  /** Before parsing: a long expression only costs parse time. */
  void cronLength(String expression) {
    if (enforced && expression.length() > limits.maxCronChars()) {
      throw new InvalidFieldException(
          "trigger.expression must be at most "
              + limits.maxCronChars()
              + " characters: "
              + Echo.of(expression));
    }
  }

  /**
   * Rejects an expression whose first firing lies beyond the horizon (like a ONCE due then), or
   * that fires more often than the minimum interval, judged on its first {@link #CRON_GAP_SAMPLES}
   * firings after now. Quartz fires on whole seconds, so with a minimum of one second or less every
   * expression passes the second check without a search. One that never fires again passes here;
   * ingest rejects it ("trigger never fires").
   */
  void cron(CronSchedule schedule) {
    if (!enforced) {
      return;
    }
    Optional<Instant> first = schedule.nextAfter(now);
    if (first.isPresent() && first.get().isAfter(now.plus(limits.maxHorizon()))) {
      throw new InvalidFieldException(
          "trigger.expression first fires at "
              + first.get()
              + ", more than "
              + describe(limits.maxHorizon())
              + " ahead (AX_MAX_HORIZON): "
              + Echo.of(schedule.expression()));
    }
    if (limits.minInterval().compareTo(Duration.ofSeconds(1)) <= 0) {
      return;
    }
    Optional<Instant> previous = first;
    for (int i = 1; i < CRON_GAP_SAMPLES && previous.isPresent(); i++) {
      Optional<Instant> next = schedule.nextAfter(previous.get());
      if (next.isPresent()
          && Duration.between(previous.get(), next.get()).compareTo(limits.minInterval()) < 0) {
        throw new InvalidFieldException(
            "trigger.expression fires "
                + describe(Duration.between(previous.get(), next.get()))
                + " apart (at "
                + previous.get()
                + " and "
                + next.get()
                + "), more often than every "
                + describe(limits.minInterval())
                + " (AX_MIN_INTERVAL): "
                + Echo.of(schedule.expression()));
      }
      previous = next;
    }
  }

  void backoff(String path, long ms) {
    if (enforced && ms > limits.maxBackoff().toMillis()) {
      throw new InvalidFieldException(
          path
              + " must be at most "
              + limits.maxBackoff().toMillis()
              + " ("
              + describe(limits.maxBackoff())
              + "): "
              + ms);
    }
  }

  /** Before a list or map is read entry by entry. */
  void count(String path, int count, int max) {
    if (enforced && count > max) {
      throw new InvalidFieldException(path + " has " + count + " entries; at most " + max);
    }
  }

  void params(Map<String, String> params) {
    bytes("params", params, limits.maxParamsBytes());
  }

  void headers(Map<String, String> headers) {
    bytes("executor.headers", headers, limits.maxHeadersBytes());
    if (!enforced) {
      return;
    }
    for (Map.Entry<String, String> header : headers.entrySet()) {
      String name = header.getKey();
      if (!HEADER_NAME.matcher(name).matches()) {
        throw new InvalidFieldException(
            "executor.headers: "
                + Echo.of(name)
                + " is not a header name (1-256 letters, digits and !#$%&'*+-.^_`|~)");
      }
      if (CLIENT_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
        throw new InvalidFieldException(
            "executor.headers." + name + " is set by the HTTP client itself; leave it out");
      }
      // The value may be a secret: said to be wrong, never echoed.
      if (!header.getValue().chars().allMatch(c -> c == '\t' || (c >= 0x20 && c < 0x7f))) {
        throw new InvalidFieldException(
            "executor.headers."
                + name
                + " holds a control or non-ASCII character (a line break would split the"
                + " request); its value is not shown");
      }
    }
  }

  /**
   * Refuses a URL carrying credentials ({@code user:password@}): it would be shown wherever the
   * task is. {@code shown} is the URL with them masked.
   */
  void noUserInfo(URI url, String shown) {
    if (enforced && url.getRawUserInfo() != null) {
      throw new InvalidFieldException(
          "executor.url must not carry credentials (user:password@): send them in a header,"
              + " which is masked wherever the task is shown: "
              + shown);
    }
  }

  void body(String body) {
    if (enforced && utf8Length(body) > limits.maxBodyBytes()) {
      throw new InvalidFieldException(
          "executor.body must be at most "
              + limits.maxBodyBytes()
              + " bytes (UTF-8): "
              + utf8Length(body));
    }
  }

  void url(String url) {
    if (enforced && url.length() > limits.maxUrlChars()) {
      throw new InvalidFieldException(
          "executor.url must be at most " + limits.maxUrlChars() + " characters: " + Echo.of(url));
    }
  }

  void arg(int index, String arg) {
    if (enforced && arg.length() > limits.maxArgChars()) {
      throw new InvalidFieldException(
          "executor.args["
              + index
              + "] must be at most "
              + limits.maxArgChars()
              + " characters: "
              + Echo.of(arg));
    }
  }

  private void bytes(String path, Map<String, String> map, int max) {
    if (!enforced) {
      return;
    }
    long total = 0;
    for (Map.Entry<String, String> entry : map.entrySet()) {
      total += utf8Length(entry.getKey()) + utf8Length(entry.getValue());
    }
    if (total > max) {
      throw new InvalidFieldException(
          path + " must hold at most " + max + " bytes of names and values (UTF-8): " + total);
    }
  }

  private static int utf8Length(String text) {
    return text.getBytes(StandardCharsets.UTF_8).length;
  }

  /** A bound for a reason: {@code 3650 days}, {@code 24 hours}, {@code 5 s}, {@code 250 ms}. */
  static String describe(Duration d) {
    if (d.toMillis() % Duration.ofDays(1).toMillis() == 0) {
      return plural(d.toDays(), "day");
    }
    if (d.toMillis() % Duration.ofHours(1).toMillis() == 0) {
      return plural(d.toHours(), "hour");
    }
    if (d.toMillis() % 1000 == 0) {
      return d.toSeconds() + " s";
    }
    return d.toMillis() + " ms";
  }

  private static String plural(long n, String unit) {
    return n + " " + unit + (n == 1 ? "" : "s");
  }
}
