package dev.ax.systemtest;

/**
 * The JSON a task command's body is made of, for {@link Commands#send}: a trigger, and the fields
 * around it, written as a user would write them. Each method returns a fragment (fields without the
 * enclosing braces) or, for a trigger, its object. Stateless.
 */
final class TaskBody {

  /** A CRON task in UTC that runs the {@code noop} handler every second. */
  static final String EVERY_SECOND_UTC = noop(cron("* * * * * ?", "UTC"));

  private TaskBody() {}

  /** {@code trigger} and the in-process {@code noop} handler, which returns at once. */
  static String noop(String trigger) {
    return "\"trigger\":"
        + trigger
        + ",\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"}";
  }

  /** {@code trigger} and an HTTP executor that calls {@code url}. */
  static String http(String trigger, String url) {
    return "\"trigger\":" + trigger + ",\"executor\":{\"type\":\"HTTP\",\"url\":\"" + url + "\"}";
  }

  /** {@code body} in task group {@code group}. */
  static String inGroup(String group, String body) {
    return "\"group\":\"" + group + "\"," + body;
  }

  /** A ONCE trigger due {@code delayMs} after the command is stored. */
  static String once(long delayMs) {
    return "{\"type\":\"ONCE\",\"delayMs\":" + delayMs + "}";
  }

  /** A FIXED_RATE trigger firing every {@code intervalMs}. */
  static String fixedRate(long intervalMs) {
    return "{\"type\":\"FIXED_RATE\",\"intervalMs\":" + intervalMs + "}";
  }

  /** A CRON trigger of {@code expression} in the default zone. */
  static String cron(String expression) {
    return "{\"type\":\"CRON\",\"expression\":\"" + expression + "\"}";
  }

  /** A CRON trigger of {@code expression} in {@code zone}. */
  static String cron(String expression, String zone) {
    return "{\"type\":\"CRON\",\"expression\":\"" + expression + "\",\"zone\":\"" + zone + "\"}";
  }

  /** A DEPENDENCY trigger on {@code upstreams}. */
  static String dependency(String... upstreams) {
    return "{\"type\":\"DEPENDENCY\",\"upstream\":[\"" + String.join("\",\"", upstreams) + "\"]}";
  }
}
