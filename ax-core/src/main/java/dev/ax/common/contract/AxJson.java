package dev.ax.common.contract;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The one Jackson configuration for AX messages: unknown fields are ignored (a newer producer may
 * add some), nulls are left out. {@link ObjectMapper} is thread-safe once configured.
 *
 * <p>It reads what AX itself wrote. Commands from producers are read by {@link CommandReader} with
 * its own strict mapper (no duplicate keys, no trailing data, bounded sizes); this one stays
 * lenient so that the hot paths reading AX's own events pay nothing for checks they cannot fail.
 */
public final class AxJson {

  /** The contract version this code writes; readers accept this and older. */
  public static final int VERSION = 1;

  public static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
          .serializationInclusion(JsonInclude.Include.NON_NULL)
          .build();

  private AxJson() {}

  public static byte[] write(Object value) {
    try {
      return MAPPER.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("cannot serialize " + value.getClass().getSimpleName(), e);
    }
  }

  public static String writeString(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("cannot serialize " + value.getClass().getSimpleName(), e);
    }
  }

  /**
   * Reads an event AX itself wrote.
   *
   * @throws UncheckedIOException if the bytes are not such an event (also for {@code null})
   */
  public static <T> T read(byte[] bytes, Class<T> type) {
    T value;
    try {
      value = MAPPER.readValue(bytes, type);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "not a valid " + type.getSimpleName() + ": " + e.getMessage(), e);
    }
    if (value == null) {
      // The JSON text "null" (or nothing): no event, and not the caller's to dereference.
      throw new UncheckedIOException(
          new IOException("not a valid " + type.getSimpleName() + ": the record holds no object"));
    }
    return value;
  }
}
