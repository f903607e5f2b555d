package dev.ax.dispatcher.executor.shell;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one directory shell tasks may run scripts from, and the check that a script name stays in it.
 * A task names a script by plain file name; {@link #resolve} turns that name into a real path and
 * admits it only if:
 *
 * <ol>
 *   <li>the name is a plain file name ({@code [A-Za-z0-9._-]{1,128}}, no {@code ..}), so no path
 *       separator, absolute path or traversal gets as far as the file system, even if the command
 *       reader that checks the same rule at intake was bypassed;
 *   <li>its real path (every symlink followed) is inside the real path of the directory, so a
 *       symlink in the directory cannot lead out of it;
 *   <li>that real path is a regular file and executable.
 * </ol>
 *
 * <p>The directory's real path is resolved again on every call, so a directory that is a symlink
 * swapped on deploy ({@code scripts -> releases/42}) is followed.
 *
 * <p>What this cannot stop: someone who can write to the directory can run anything, and a file
 * swapped between the check and the exec (a few microseconds) is run unchecked. The directory must
 * be writable only by whoever deploys scripts; a group- or world-writable directory is warned about
 * at start.
 *
 * <p>Immutable; thread-safe.
 */
public final class ScriptDirectory {

  private static final Logger log = LoggerFactory.getLogger(ScriptDirectory.class);

  /** The same rule the command reader applies to {@code executor.script}. */
  private static final Pattern PLAIN_NAME = Pattern.compile("[A-Za-z0-9._-]{1,128}");

  private static final int MAX_QUOTED_CHARS = 140;

  private final Path configured;

  /**
   * @throws IllegalArgumentException if {@code configured} is not an existing directory
   */
  public ScriptDirectory(Path configured) {
    this.configured = configured;
    Path real;
    try {
      real = configured.toRealPath();
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "script directory does not exist or cannot be read: " + configured + " (" + e + ")");
    }
    if (!Files.isDirectory(real)) {
      throw new IllegalArgumentException("script directory is not a directory: " + configured);
    }
    warnIfWritableByOthers(real);
  }

  /** A script admitted to run: the real directory (its working directory) and the real file. */
  public record Script(Path directory, Path file) {}

  /** The directory as configured (not resolved). */
  public Path configured() {
    return configured;
  }

  /**
   * Admits {@code name} or says why not.
   *
   * @throws IOException if the directory itself cannot be resolved any more (removed after start):
   *     an operations problem a retry may outlive, not the task's fault
   */
  public Admission<Script> resolve(String name) throws IOException {
    if (name == null || name.isEmpty()) {
      return Admission.refused("executor.script is missing");
    }
    if (name.indexOf('/') >= 0 || name.indexOf('\\') >= 0 || name.contains("..")) {
      return Admission.refused(
          "script "
              + quoted(name)
              + " is refused: a script is a plain file name inside the script directory, not a"
              + " path");
    }
    if (!PLAIN_NAME.matcher(name).matches()) {
      return Admission.refused(
          "script " + quoted(name) + " is refused: a script name must match " + PLAIN_NAME);
    }
    Path directory = configured.toRealPath();
    Path file;
    try {
      file = directory.resolve(name).toRealPath();
    } catch (NoSuchFileException e) {
      return Admission.refused("script " + quoted(name) + " not found in the script directory");
    } catch (IOException e) {
      // A symlink loop, a permission problem: say which kind, not where the link pointed.
      return Admission.refused(
          "script " + quoted(name) + " cannot be resolved (" + e.getClass().getSimpleName() + ")");
    }
    if (!file.startsWith(directory)) {
      return Admission.refused(
          "script "
              + quoted(name)
              + " is refused: it resolves to a file outside the script directory");
    }
    if (!Files.isRegularFile(file)) {
      return Admission.refused("script " + quoted(name) + " is not a regular file");
    }
    if (!Files.isExecutable(file)) {
      return Admission.refused("script " + quoted(name) + " is not executable");
    }
    return Admission.admitted(new Script(directory, file));
  }

  private static String quoted(String name) {
    return Quoting.quote(name, MAX_QUOTED_CHARS);
  }

  private static void warnIfWritableByOthers(Path real) {
    try {
      Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(real);
      if (permissions.contains(PosixFilePermission.GROUP_WRITE)
          || permissions.contains(PosixFilePermission.OTHERS_WRITE)) {
        log.warn(
            "Script directory {} is writable by group or others: whoever can write there can run"
                + " anything as this dispatcher",
            real);
      }
    } catch (UnsupportedOperationException | IOException e) {
      // Not a POSIX file system, or not readable: nothing to warn about that we can see.
    }
  }

  @Override
  public String toString() {
    return configured.toString();
  }
}
