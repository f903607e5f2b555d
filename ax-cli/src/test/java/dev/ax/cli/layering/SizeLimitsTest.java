package dev.ax.cli.layering;

import static org.assertj.core.api.Assertions.assertThat;

import com.puppycrawl.tools.checkstyle.Checker;
import com.puppycrawl.tools.checkstyle.ConfigurationLoader;
import com.puppycrawl.tools.checkstyle.PropertiesExpander;
import com.puppycrawl.tools.checkstyle.api.AuditEvent;
import com.puppycrawl.tools.checkstyle.api.AuditListener;
import com.puppycrawl.tools.checkstyle.api.CheckstyleException;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The size limits the build keeps ({@code config/size-limits.xml}, run by checkstyle in {@code mvn
 * verify}) fire: that very file, through Checkstyle's own Checker, reports a 401-line file and an
 * 81-line method, and nothing at 400 and 80; the timing wheel, and only the timing wheel, is
 * excepted. Without this, a limit misspelt in the configuration would pass every build silently.
 */
class SizeLimitsTest {

  /** The build's configuration, from this module's directory (the tests' working directory). */
  private static final Path CONFIG =
      Path.of("").toAbsolutePath().getParent().resolve("config").resolve("size-limits.xml");

  private static final String FILE_LENGTH = "checks.sizes.FileLengthCheck";
  private static final String METHOD_LENGTH = "checks.sizes.MethodLengthCheck";

  @TempDir Path dir;

  @Test
  void aFileOver400LinesAndAMethodOver80AreReportedAndNothingAtTheLimits() throws Exception {
    List<File> files =
        List.of(
            write("fixture/FileOverLimit.java", javaFile("FileOverLimit", 401, 0)),
            write("fixture/FileAtLimit.java", javaFile("FileAtLimit", 400, 0)),
            write("fixture/MethodOverLimit.java", javaFile("MethodOverLimit", 100, 81)),
            write("fixture/MethodAtLimit.java", javaFile("MethodAtLimit", 100, 80)));

    List<String> violations = check(files);

    assertThat(violations)
        .containsExactlyInAnyOrder(
            "FileOverLimit.java:1 " + FILE_LENGTH + " File length is 401 lines",
            "MethodOverLimit.java:4 " + METHOD_LENGTH + " Method longMethod length is 81 lines");
  }

  @Test
  void theTimingWheelUnderWheelIsExceptedAndNoOtherFileOfThatName() throws Exception {
    String wheel = javaFile("TimingWheel", 450, 90);
    List<File> files =
        List.of(
            write("dev/ax/common/wheel/TimingWheel.java", wheel),
            write("dev/ax/common/elsewhere/TimingWheel.java", wheel));

    List<String> violations = check(files);

    assertThat(violations)
        .as("only the copy outside wheel/ is reported")
        .containsExactlyInAnyOrder(
            "TimingWheel.java:1 " + FILE_LENGTH + " File length is 450 lines",
            "TimingWheel.java:4 " + METHOD_LENGTH + " Method longMethod length is 90 lines");
    assertThat(violationPaths(files)).allSatisfy(path -> assertThat(path).contains("elsewhere"));
  }

  /** Each violation as {@code file:line check message-start}; the message's English text. */
  private List<String> check(List<File> files) throws CheckstyleException {
    List<String> violations = new ArrayList<>();
    runChecker(
        files,
        event ->
            violations.add(
                Path.of(event.getFileName()).getFileName()
                    + ":"
                    + event.getLine()
                    + " "
                    + event.getSourceName().replace("com.puppycrawl.tools.checkstyle.", "")
                    + " "
                    + event.getMessage().replaceFirst(" \\(max allowed is \\d+\\)\\.$", "")));
    return violations;
  }

  private List<String> violationPaths(List<File> files) throws CheckstyleException {
    List<String> paths = new ArrayList<>();
    runChecker(files, event -> paths.add(event.getFileName()));
    return paths;
  }

  private interface Violations {
    void add(AuditEvent event);
  }

  private static void runChecker(List<File> files, Violations violations)
      throws CheckstyleException {
    assertThat(CONFIG).as("the build's size limits").isRegularFile();
    Properties noProperties = new Properties();
    Checker checker = new Checker();
    try {
      checker.setModuleClassLoader(Checker.class.getClassLoader());
      // The messages are compared in English, whatever the machine's locale (set before configure,
      // which applies it).
      checker.setLocaleLanguage("en");
      checker.setLocaleCountry("");
      checker.configure(
          ConfigurationLoader.loadConfiguration(
              CONFIG.toString(), new PropertiesExpander(noProperties)));
      checker.addListener(
          new AuditListener() {
            @Override
            public void auditStarted(AuditEvent event) {}

            @Override
            public void auditFinished(AuditEvent event) {}

            @Override
            public void fileStarted(AuditEvent event) {}

            @Override
            public void fileFinished(AuditEvent event) {}

            @Override
            public void addError(AuditEvent event) {
              violations.add(event);
            }

            @Override
            public void addException(AuditEvent event, Throwable throwable) {
              throw new AssertionError("checkstyle failed on " + event.getFileName(), throwable);
            }
          });
      checker.process(files);
    } finally {
      checker.destroy();
    }
  }

  private File write(String relative, String text) throws IOException {
    Path file = dir.resolve(relative);
    Files.createDirectories(file.getParent());
    Files.writeString(file, text);
    return file.toFile();
  }

  /**
   * A compilable class of {@code fileLines} lines; with {@code methodLines} > 0, its method {@code
   * longMethod} opens on line 4 and spans that many lines, from its opening brace to its closing
   * one (the way the limit counts, blank lines included).
   */
  private static String javaFile(String className, int fileLines, int methodLines) {
    List<String> lines = new ArrayList<>();
    lines.add("package fixture;");
    lines.add("");
    lines.add("final class " + className + " {");
    if (methodLines > 0) {
      lines.add("  int longMethod() {");
      lines.add("    int sum = 0;");
      while (lines.size() < 3 + methodLines - 2) {
        lines.add("    sum += " + lines.size() + ";");
      }
      lines.add("    return sum;");
      lines.add("  }");
    }
    lines.add("}");
    while (lines.size() < fileLines) {
      lines.add("// padding");
    }
    return String.join("\n", lines) + "\n";
  }
}
