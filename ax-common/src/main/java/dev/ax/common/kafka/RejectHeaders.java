package dev.ax.common.kafka;

/**
 * Headers on a rejected command: the value and key are the original bytes, unchanged; these say why
 * and where it came from.
 */
public final class RejectHeaders {
  public static final String REASON = "ax.reject.reason";
  public static final String SOURCE_TOPIC = "ax.source.topic";
  public static final String SOURCE_PARTITION = "ax.source.partition";
  public static final String SOURCE_OFFSET = "ax.source.offset";

  /** traceId header on every AX event, beside the JSON field. */
  public static final String TRACE_ID = "ax.trace.id";

  /**
   * The task's trigger type on completion events, beside the JSON field: lets a consumer that wants
   * one type (the FIXED_DELAY chainer) skip the others without parsing them.
   */
  public static final String TRIGGER_TYPE = "ax.trigger.type";

  private RejectHeaders() {}
}
