package dev.ax.ingest;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * Why a command was rejected, as a class an operator can alert on; the exact reason travels with
 * the command on the rejected topic. The tag {@code reason} of {@code ax.ingest.rejected} is one of
 * these, lower case, so its series are bounded whatever the input.
 */
enum RejectionClass {
  /** Not a command: too large, not JSON, against the schema, or a value out of its bounds. */
  INVALID,
  /** The record's key is neither absent nor the command's taskId (or group). */
  KEY,
  /** Valid, but asks for what AX does not do: a trigger that never fires, a dependency cycle. */
  UNSUPPORTED,
  /** Over a limit on what is stored, such as the active tasks of a group. */
  LIMIT,
  /** Not applicable to the task as it stands: unknown, deleted, or in a state the command skips. */
  STATE;

  /** One counter per class, registered up front so every class is exported from the start. */
  static Map<RejectionClass, Counter> counters(MeterRegistry meters, String namespace) {
    Map<RejectionClass, Counter> counters = new EnumMap<>(RejectionClass.class);
    for (RejectionClass reasonClass : values()) {
      counters.put(
          reasonClass,
          Counter.builder("ax.ingest.rejected")
              .description("commands rejected with a reason on the rejected topic")
              .tag("reason", reasonClass.name().toLowerCase(Locale.ROOT))
              .tag("namespace", namespace)
              .register(meters));
    }
    return counters;
  }
}
