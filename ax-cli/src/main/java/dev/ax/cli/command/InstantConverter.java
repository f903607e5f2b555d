package dev.ax.cli.command;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads an instant option written in ISO-8601 with a zone: {@code 2026-01-31T12:00:00Z} or {@code
 * 2026-01-31T13:00:00+01:00}. Registered for every {@link Instant} option of {@code ax} ({@code
 * AxCli.commandLine()}). Stateless.
 */
public final class InstantConverter implements ITypeConverter<Instant> {

  @Override
  public Instant convert(String text) {
    try {
      return OffsetDateTime.parse(text.trim()).toInstant();
    } catch (DateTimeParseException e) {
      throw new TypeConversionException(
          "'" + text + "' is not an ISO-8601 instant (e.g. 2026-01-31T12:00:00Z)");
    }
  }
}
