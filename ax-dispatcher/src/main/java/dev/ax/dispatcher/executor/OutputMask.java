package dev.ax.dispatcher.executor;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Masks what looks secret in a run's output before AX stores it or puts it in an event:
 *
 * <ol>
 *   <li>the values of the task's params and request headers whose names look secret ({@link
 *       #SECRET_NAME}: password, secret, token, API key, authorization, cookie, credential), and
 *       any further secrets the caller names (the HTTP signing secret), wherever they appear, as
 *       {@link #MASK}; values shorter than {@link #MIN_SECRET_CHARS} are left alone (masking every
 *       "ab" would garble the text and hide nothing);
 *   <li>anything written as {@code name: value} or {@code name=value} whose name looks secret
 *       ({@link #SECRET_ASSIGNMENT}), as {@code name=***} keeping the name and separator; a {@code
 *       Bearer} or {@code Basic} scheme is masked with its credential.
 * </ol>
 *
 * A safety net for the common cases, not a guarantee: a secret a script prints in pieces, encoded,
 * or under an innocent name passes. Immutable; thread-safe.
 */
public final class OutputMask {

  /** What a masked value becomes. */
  public static final String MASK = "***";

  /** The shortest literal value masked. */
  static final int MIN_SECRET_CHARS = 4;

  /** A param or header name whose value is a secret. */
  static final Pattern SECRET_NAME =
      Pattern.compile(
          "(?i).*(password|passwd|secret|token|api[_-]?key|authorization|cookie|credential).*");

  /** {@code name: value} or {@code name=value} with a secret-looking name. */
  static final Pattern SECRET_ASSIGNMENT =
      Pattern.compile(
          "(?i)(password|passwd|secret|token|api[_-]?key|authorization)([\"']?\\s*[:=]\\s*[\"']?)"
              + "(?:(?:bearer|basic)\\s+)?[^\\s,;&\"']+");

  private static final OutputMask PATTERNS_ONLY = new OutputMask(List.of());

  /** Literal secrets, longest first (so a secret containing another is masked whole). */
  private final List<String> secrets;

  private OutputMask(List<String> secrets) {
    this.secrets = secrets;
  }

  /** Masks only by {@link #SECRET_ASSIGNMENT}: for a run whose task has no secret values. */
  public static OutputMask patternsOnly() {
    return PATTERNS_ONLY;
  }

  /**
   * The mask of a task with {@code params} and request {@code headers} (either may be empty), and
   * {@code otherSecrets} masked wherever they appear.
   */
  public static OutputMask of(
      Map<String, String> params, Map<String, String> headers, Collection<String> otherSecrets) {
    List<String> secrets = new ArrayList<>();
    addSecretValues(params, secrets);
    addSecretValues(headers, secrets);
    for (String secret : otherSecrets) {
      addIfLongEnough(secret, secrets);
    }
    if (secrets.isEmpty()) {
      return PATTERNS_ONLY;
    }
    secrets.sort(Comparator.comparingInt(String::length).reversed());
    return new OutputMask(List.copyOf(secrets));
  }

  /** Whether {@code name} (of a param or header) names a secret. */
  public static boolean looksSecret(String name) {
    return SECRET_NAME.matcher(name.toLowerCase(Locale.ROOT)).matches();
  }

  /** {@code text} with its secrets masked; null stays null. */
  public String apply(String text) {
    if (text == null || text.isEmpty()) {
      return text;
    }
    String masked = text;
    for (String secret : secrets) {
      masked = masked.replace(secret, MASK);
    }
    Matcher assignment = SECRET_ASSIGNMENT.matcher(masked);
    return assignment.find()
        ? assignment.replaceAll(m -> Matcher.quoteReplacement(m.group(1) + m.group(2) + MASK))
        : masked;
  }

  private static void addSecretValues(Map<String, String> values, List<String> secrets) {
    values.forEach(
        (name, value) -> {
          if (looksSecret(name)) {
            addIfLongEnough(value, secrets);
          }
        });
  }

  private static void addIfLongEnough(String secret, List<String> secrets) {
    if (secret != null && secret.length() >= MIN_SECRET_CHARS && !secrets.contains(secret)) {
      secrets.add(secret);
    }
  }

  @Override
  public String toString() {
    return "OutputMask[" + secrets.size() + " secret value(s), masked]";
  }
}
