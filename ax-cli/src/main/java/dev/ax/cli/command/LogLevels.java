package dev.ax.cli.command;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.FileAppender;
import java.nio.file.Path;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;

/**
 * Keeps the stages' logs out of the output of commands whose own output is the point: {@code ax
 * bench} lowers them to ERROR ({@link #quiet}: every logger with a level of its own (see
 * logback.xml) and the root, except {@code dev.ax.cli}), {@code ax demo} sends them to a file
 * ({@link #toFile}). Does nothing when the SLF4J binding is not logback. Call it from the main
 * thread before anything starts.
 */
public final class LogLevels {

  /** The console's text pattern (logback.xml), without its JSON option. */
  private static final String PATTERN =
      "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread] %logger{0} %msg%replace( {%mdc}){' \\{\\}', ''}%n";

  private LogLevels() {}

  /**
   * Sends every log line to {@code file} instead of the console, at the levels logback.xml sets
   * ({@code ax demo}: its own output is the point, and its log is there to look at when something
   * went wrong). Does nothing when the binding is not logback.
   */
  public static void toFile(Path file) {
    ILoggerFactory factory = LoggerFactory.getILoggerFactory();
    if (!(factory instanceof LoggerContext context)) {
      return;
    }
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern(PATTERN);
    encoder.start();
    FileAppender<ILoggingEvent> appender = new FileAppender<>();
    appender.setContext(context);
    appender.setName("FILE");
    appender.setFile(file.toString());
    appender.setEncoder(encoder);
    appender.start();
    ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.detachAndStopAllAppenders();
    root.addAppender(appender);
  }

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
