package dev.ax.cli.logging;

import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.encoder.EncoderBase;
import java.util.Locale;

/**
 * The log encoder of every AX process: text lines with the configured pattern, or one JSON object
 * per line (logback's {@link JsonEncoder}, with the MDC trace fields) when {@code
 * AX_LOG_FORMAT=json}. An unknown format logs text and says so once, rather than logging nothing.
 *
 * <p>Thread-safety: as logback's encoders (configured once, then called under the appender's lock).
 */
public final class LogFormatEncoder extends EncoderBase<ILoggingEvent> {

  /** The environment variable (or system property {@code ax.log.format}) that picks the format. */
  public static final String KEY = "AX_LOG_FORMAT";

  private String pattern = "%d %-5level [%thread] %logger{0} %msg%n";
  private Encoder<ILoggingEvent> delegate;

  /** The text pattern (logback's {@code PatternLayout} syntax). */
  public void setPattern(String pattern) {
    this.pattern = pattern;
  }

  /** The format {@code AX_LOG_FORMAT} asks for: {@code text} (the default) or {@code json}. */
  static String requestedFormat() {
    String value = System.getProperty("ax.log.format", System.getenv(KEY));
    return value == null || value.isBlank() ? "text" : value.strip().toLowerCase(Locale.ROOT);
  }

  @Override
  public void start() {
    String format = requestedFormat();
    if (format.equals("json")) {
      JsonEncoder json = new JsonEncoder();
      json.setContext(getContext());
      json.start();
      delegate = json;
    } else {
      PatternLayoutEncoder text = new PatternLayoutEncoder();
      text.setContext(getContext());
      text.setPattern(pattern);
      text.start();
      delegate = text;
      if (!format.equals("text")) {
        // Not addWarn: a warning makes logback print its whole configuration status.
        System.err.println(
            "AX: " + KEY + " must be text or json, not " + format + "; logging text");
      }
    }
    super.start();
  }

  @Override
  public void stop() {
    if (delegate != null) {
      delegate.stop();
    }
    super.stop();
  }

  @Override
  public byte[] headerBytes() {
    return delegate.headerBytes();
  }

  @Override
  public byte[] encode(ILoggingEvent event) {
    return delegate.encode(event);
  }

  @Override
  public byte[] footerBytes() {
    return delegate.footerBytes();
  }
}
