package dev.ax.cli.layering;

import dev.ax.common.model.DeadLetterState;
import dev.ax.common.model.TaskState;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds task and dead-letter states written as bare strings in Java source, which would escape the
 * states' enums and their transition tables ({@link TaskState}, {@link DeadLetterState}). Only the
 * string literals of the source are read (comments, char literals and code are skipped, so a
 * javadoc that names a state or an identifier such as {@code ACTIVE_PAGE} is no finding), and a
 * literal is a finding when it either
 *
 * <ul>
 *   <li>is exactly a state's name ({@code "PAUSED"}: a Java comparison or a bound value), or
 *   <li>holds a state's name as an SQL string literal ({@code "... state = 'ACTIVE'"}).
 * </ul>
 *
 * A message that names states in prose ({@code "--state must be OPEN, REPLAYED or DISCARDED"}) is
 * neither, so no word of ordinary text is caught; an instance status that shares a name with a task
 * state (CANCELLED, PAUSED) is caught as well, and belongs to {@code InstanceStatus} anyway.
 *
 * <p>Stateless; thread-safe.
 */
final class StateLiterals {

  /** Every task and dead-letter state name. */
  static final Set<String> NAMES = names();

  private static final Pattern SQL_LITERAL = Pattern.compile("'(" + String.join("|", NAMES) + ")'");

  private StateLiterals() {}

  /** The findings in {@code source}, each as {@code line N: "literal"}; empty when clean. */
  static List<String> findings(String source) {
    List<String> findings = new ArrayList<>();
    for (Literal literal : literals(source)) {
      Matcher sql = SQL_LITERAL.matcher(literal.text());
      if (NAMES.contains(literal.text()) || sql.find()) {
        findings.add("line " + literal.line() + ": \"" + literal.text() + "\"");
      }
    }
    return findings;
  }

  /** A string literal's text (escapes left as written) and the line it starts on. */
  record Literal(String text, int line) {}

  /**
   * The string literals (and text blocks) of {@code source}, outside comments and char literals. A
   * small lexer rather than a regular expression: a quote inside a comment or a char literal
   * ({@code '"'}) must not open a string.
   */
  static List<Literal> literals(String source) {
    List<Literal> literals = new ArrayList<>();
    int line = 1;
    int i = 0;
    int n = source.length();
    while (i < n) {
      char c = source.charAt(i);
      if (c == '\n') {
        line++;
        i++;
      } else if (source.startsWith("//", i)) {
        i = indexOrEnd(source, "\n", i);
      } else if (source.startsWith("/*", i)) {
        int end = indexOrEnd(source, "*/", i + 2) + 2;
        line += count(source, i, Math.min(end, n));
        i = end;
      } else if (source.startsWith("\"\"\"", i)) {
        int end = indexOrEnd(source, "\"\"\"", i + 3);
        literals.add(new Literal(source.substring(i + 3, Math.min(end, n)), line));
        line += count(source, i, Math.min(end, n));
        i = end + 3;
      } else if (c == '"' || c == '\'') {
        int end = closing(source, i + 1, c);
        if (c == '"') {
          literals.add(new Literal(source.substring(i + 1, end), line));
        }
        i = end + 1;
      } else {
        i++;
      }
    }
    return literals;
  }

  /** The index of the quote that closes a literal opened before {@code from}, past escapes. */
  private static int closing(String source, int from, char quote) {
    int i = from;
    while (i < source.length() && source.charAt(i) != quote && source.charAt(i) != '\n') {
      i += source.charAt(i) == '\\' ? 2 : 1;
    }
    return Math.min(i, source.length());
  }

  private static int indexOrEnd(String source, String token, int from) {
    int at = source.indexOf(token, from);
    return at < 0 ? source.length() : at;
  }

  private static int count(String source, int from, int to) {
    int lines = 0;
    for (int i = from; i < to; i++) {
      if (source.charAt(i) == '\n') {
        lines++;
      }
    }
    return lines;
  }

  private static Set<String> names() {
    Set<String> names = new LinkedHashSet<>();
    for (TaskState state : TaskState.values()) {
      names.add(state.name());
    }
    for (DeadLetterState state : DeadLetterState.values()) {
      names.add(state.name());
    }
    return names;
  }
}
