package dev.ax.api.http;

import io.javalin.http.Context;
import java.util.Arrays;
import java.util.Locale;

/**
 * A request's query parameters, checked: bounded lengths, whole numbers in range, names of an enum.
 * A bad one is an {@link ApiException} {@code bad_request} naming the parameter. Stateless.
 */
final class QueryParams {

  /** Longest text parameter read (ids, groups, search text). */
  static final int MAX_TEXT = 200;

  private QueryParams() {}

  /** The parameter {@code name}, or null when absent or empty. */
  static String text(Context ctx, String name) {
    String value = ctx.queryParam(name);
    if (value == null || value.isEmpty()) {
      return null;
    }
    if (value.length() > MAX_TEXT) {
      throw ApiException.badRequest(name + " is longer than " + MAX_TEXT + " characters");
    }
    return value;
  }

  /** The whole number {@code name} in {@code min..max}, or {@code absent}. */
  static int integer(Context ctx, String name, int absent, int min, int max) {
    String value = text(ctx, name);
    if (value == null) {
      return absent;
    }
    try {
      int n = Integer.parseInt(value);
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // answered below
    }
    throw ApiException.badRequest(name + " must be a whole number in " + min + ".." + max);
  }

  /** The constant of {@code type} named by {@code name} (any case), or null when absent. */
  static <E extends Enum<E>> String oneOf(Context ctx, String name, Class<E> type) {
    String value = text(ctx, name);
    if (value == null) {
      return null;
    }
    String upper = value.toUpperCase(Locale.ROOT);
    for (E constant : type.getEnumConstants()) {
      if (constant.name().equals(upper)) {
        return upper;
      }
    }
    throw ApiException.badRequest(
        name + " must be one of " + Arrays.toString(type.getEnumConstants()));
  }

  /** Whether the flag {@code name} is {@code true}. */
  static boolean flag(Context ctx, String name) {
    String value = text(ctx, name);
    if (value == null || value.equals("false")) {
      return false;
    }
    if (value.equals("true")) {
      return true;
    }
    throw ApiException.badRequest(name + " must be true or false");
  }
}
