package dev.ax.dispatcher.run;

import java.io.PrintWriter;
import java.io.StringWriter;

/** A throwable's stack trace as text, bounded, for the dead letter (never for the log). */
final class StackTraces {

  static final int MAX_CHARS = 64 * 1024;

  private StackTraces() {}

  static String of(Throwable error) {
    StringWriter text = new StringWriter();
    error.printStackTrace(new PrintWriter(text));
    String trace = text.toString();
    return trace.length() <= MAX_CHARS ? trace : trace.substring(0, MAX_CHARS) + "\n\t... (cut)";
  }
}
