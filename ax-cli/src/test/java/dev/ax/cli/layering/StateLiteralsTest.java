package dev.ax.cli.layering;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No task or dead-letter state is written as a string in the main code of any module: every
 * statement and comparison builds it from {@code TaskState} or {@code DeadLetterState}, so each
 * state written goes through its enum's transition table (issue 38). The scan reads the sources of
 * every module's {@code src/main/java} (this module's tests run in its own directory, beside the
 * others); it allows no exception. Outside its reach, on purpose: the Flyway migrations (SQL files,
 * fixed once applied) and test code (which seeds rows in given states by hand).
 */
class StateLiteralsTest {

  @Test
  void noMainSourceWritesAStateAsAString() throws IOException {
    List<Path> sources = mainSources();
    assertThat(sources)
        .as("the scan must see the stores that write states, or it proves nothing")
        .anyMatch(path -> path.endsWith("TaskStore.java"))
        .anyMatch(path -> path.endsWith("DeadLetterStore.java"))
        .anyMatch(path -> path.endsWith("TaskListCommand.java"));
    List<String> findings = new ArrayList<>();
    for (Path source : sources) {
      for (String finding : StateLiterals.findings(Files.readString(source))) {
        findings.add(root().relativize(source) + " " + finding);
      }
    }
    assertThat(findings).as("state literals outside TaskState and DeadLetterState").isEmpty();
  }

  @Test
  void theScanFindsAStateInAComparisonAndInSql() {
    String violation =
        """
        class Sample {
          boolean paused(String state) {
            return state.equals("PAUSED");
          }
          static final String PAGE = "SELECT id FROM ax_task WHERE state = 'ACTIVE' LIMIT ?";
          static final String OPEN_LETTERS = "SELECT id FROM ax_dead_letter WHERE state IN ('OPEN')";
        }
        """;
    assertThat(StateLiterals.findings(violation))
        .containsExactly(
            "line 3: \"PAUSED\"",
            "line 5: \"SELECT id FROM ax_task WHERE state = 'ACTIVE' LIMIT ?\"",
            "line 6: \"SELECT id FROM ax_dead_letter WHERE state IN ('OPEN')\"");
  }

  @Test
  void theScanFindsAStateInATextBlock() {
    String violation = "String sql = \"\"\"\n  UPDATE ax_task SET state = 'DELETED'\n  \"\"\";";
    assertThat(StateLiterals.findings(violation)).hasSize(1);
  }

  @Test
  void proseCommentsIdentifiersAndOtherWordsAreNoFinding() {
    String clean =
        """
        /** A task that is ACTIVE or PAUSED; "OPEN" in a comment. */
        class Sample {
          // state = 'ACTIVE' in a line comment
          static final String ACTIVE_PAGE = "SELECT 1 WHERE trigger_type = 'ONCE'";
          static final char QUOTE = '"';
          static final String HELP = "--state must be OPEN, REPLAYED or DISCARDED: ";
          static final String BREAKER = "OPENED";
          static final String BUILT = "state = " + literal(TaskState.ACTIVE);
        }
        """;
    assertThat(StateLiterals.findings(clean)).isEmpty();
  }

  @Test
  void theNamesAreEveryTaskAndDeadLetterState() {
    assertThat(StateLiterals.NAMES)
        .containsExactlyInAnyOrder(
            "ACTIVE", "PAUSED", "CANCELLED", "DELETED", "ENDED", "OPEN", "REPLAYED", "DISCARDED");
  }

  /** Every module's main sources: the directories beside this module's that hold src/main/java. */
  private static List<Path> mainSources() throws IOException {
    List<Path> sources = new ArrayList<>();
    try (Stream<Path> modules = Files.list(root())) {
      for (Path module : modules.toList()) {
        Path main = module.resolve("src/main/java");
        if (Files.isDirectory(main)) {
          try (Stream<Path> files = Files.walk(main)) {
            files.filter(path -> path.toString().endsWith(".java")).forEach(sources::add);
          }
        }
      }
    }
    return sources;
  }

  /** The project's root: the parent of this module's directory, where the tests run. */
  private static Path root() {
    Path here = Path.of("").toAbsolutePath();
    Path root = here.getParent();
    if (root == null || !Files.isDirectory(root.resolve("ax-core"))) {
      throw new UncheckedIOException(
          new IOException("not run from a module directory of AX: " + here));
    }
    return root;
  }
}
