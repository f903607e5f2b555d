package dev.ax.common.kafka;

/**
 * Headers on a rejected command: the value and key are the original bytes, unchanged; these say why
 * and where it came from. A rejection too large for Kafka carries no value (and no key longer than
 * 1 KiB) and says instead what it was: {@link #VALUE_SHA256}, {@link #VALUE_BYTES}, {@link
 * #KEY_SHA256}.
 */
public final class RejectHeaders {
  public static final String REASON = "ax.reject.reason";
  public static final String SOURCE_TOPIC = "ax.source.topic";
  public static final String SOURCE_PARTITION = "ax.source.partition";
  public static final String SOURCE_OFFSET = "ax.source.offset";

  /** Hex SHA-256 of the original value, on a rejection sent without it. */
  public static final String VALUE_SHA256 = "ax.reject.value.sha256";

  /** Length in bytes of the original value, on a rejection sent without it. */
  public static final String VALUE_BYTES = "ax.reject.value.bytes";

  /** Hex SHA-256 of the original key (UTF-8), on a rejection sent without it. */
  public static final String KEY_SHA256 = "ax.reject.key.sha256";

  /** traceId header on every AX event, beside the JSON field. */
  public static final String TRACE_ID = "ax.trace.id";

  /**
   * The task's trigger type on completion events, beside the JSON field: lets a consumer that wants
   * one type (the FIXED_DELAY chainer) skip the others without parsing them.
   */
  public static final String TRIGGER_TYPE = "ax.trigger.type";

  private RejectHeaders() {}
}
