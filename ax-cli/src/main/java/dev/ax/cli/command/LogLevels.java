package dev.ax.cli.command;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;

/**
 * Lowers logging to ERROR for commands whose own output is the point ({@code ax demo}, {@code ax
 * bench}): every logger with a level of its own (see logback.xml) and the root go to ERROR, except
 * {@code dev.ax.cli}. Does nothing when the SLF4J binding is not logback. Call it from the main
 * thread before anything starts.
 */
public final class LogLevels {

  private LogLevels() {}

  public static void quiet() {
    ILoggerFactory factory = LoggerFactory.getILoggerFactory();
    if (!(factory instanceof LoggerContext context)) {
      return;
    }
    for (ch.qos.logback.classic.Logger logger : context.getLoggerList()) {
      if (logger.getLevel() != null) {
        logger.setLevel(Level.ERROR);
      }
    }
    context.getLogger("dev.ax.cli").setLevel(Level.INFO);
  }
}
