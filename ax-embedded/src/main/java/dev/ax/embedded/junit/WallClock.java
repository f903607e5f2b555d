package dev.ax.embedded.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks a test class or method that asserts a wall-clock bound (lateness, a backoff's length, a
 * hand-over time): it holds only when the machine is not shared with other tests. The build runs
 * such tests in an execution of their own ({@value #TAG}), one JVM, after the module's other ITs,
 * which may run in parallel forks; that JVM takes the machine alone ({@link MachineTurns}), so that
 * no test JVM of another module built in parallel runs beside it.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@Tag(WallClock.TAG)
public @interface WallClock {

  /** The JUnit tag the build selects these tests by. */
  String TAG = "wall-clock";
}
