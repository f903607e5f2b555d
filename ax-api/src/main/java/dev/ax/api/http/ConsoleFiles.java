package dev.ax.api.http;

import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The console's three static files (a page, its script, its style sheet), read once from the class
 * path and served under {@code /console/} with a content security policy that lets the page run its
 * own script only and be framed by no other site. They hold no data: every value comes from the
 * API, which checks each request. Immutable; thread-safe.
 */
final class ConsoleFiles {

  /** The script may load from this server only; nothing inline, no frames of this page. */
  static final String POLICY =
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
          + " frame-ancestors 'none'; form-action 'self'; base-uri 'none'";

  private static final Map<String, String> TYPES =
      Map.of(
          "index.html", "text/html; charset=utf-8",
          "console.js", "text/javascript; charset=utf-8",
          "console.css", "text/css; charset=utf-8");

  private final Map<String, byte[]> files;

  private ConsoleFiles(Map<String, byte[]> files) {
    this.files = files;
  }

  static ConsoleFiles load() {
    return new ConsoleFiles(
        Map.of(
            "index.html", read("index.html"),
            "console.js", read("console.js"),
            "console.css", read("console.css")));
  }

  /** A handler answering {@code name}. */
  Handler serve(String name) {
    byte[] body = files.get(name);
    String type = TYPES.get(name);
    return (Context ctx) -> {
      ctx.header("Content-Security-Policy", POLICY);
      ctx.header("X-Content-Type-Options", "nosniff");
      ctx.header("X-Frame-Options", "DENY");
      ctx.header("Referrer-Policy", "no-referrer");
      ctx.header("Cache-Control", "no-cache");
      ctx.contentType(type).result(body);
    };
  }

  private static byte[] read(String name) {
    try (InputStream in = ConsoleFiles.class.getResourceAsStream("/dev/ax/api/console/" + name)) {
      if (in == null) {
        throw new IllegalStateException(name + " of the console is missing from the class path");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
