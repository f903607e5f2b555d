package dev.ax.dispatcher.executor.shell;

import dev.ax.spi.ExecutionContext;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The environment a script runs with. It starts empty, not from the dispatcher's own environment
 * (which holds the database password), and gets:
 *
 * <ul>
 *   <li>{@code PATH=/usr/bin:/bin} and {@code LANG=C.UTF-8};
 *   <li>each task param as {@code AX_PARAM_<NAME>}: the name upper-cased, every character outside
 *       {@code [A-Z0-9_]} replaced by {@code _} ({@code db.url} becomes {@code AX_PARAM_DB_URL});
 *   <li>{@code AX_TASK_ID}, {@code AX_INSTANCE_ID}, {@code AX_ATTEMPT}, {@code AX_SHARD_INDEX},
 *       {@code AX_SHARD_TOTAL} (0 and 1 when the task is not sharded), {@code AX_TRACE_ID} (the
 *       run's trace), {@code AX_TASK_TRACE_ID} (the task's), {@code TRACEPARENT} (W3C, for the
 *       script's own calls), {@code AX_IDEMPOTENCY_KEY} (the instance id, the same on every
 *       attempt) and {@code AX_DEADLINE_MS} (epoch millis).
 * </ul>
 *
 * <p>Refused, so the task fails permanently instead of running with a surprise: two params that map
 * to the same variable ({@code a-b} and {@code a_b}; which one would win depends on map order) and
 * a value holding a NUL character (the environment cannot carry it). Refusals name the param, never
 * its value: params may hold secrets.
 *
 * <p>Stateless; thread-safe.
 */
public final class ScriptEnvironment {

  public static final String PARAM_PREFIX = "AX_PARAM_";
  public static final String PATH = "/usr/bin:/bin";
  public static final String LANG = "C.UTF-8";

  private static final Pattern NOT_A_NAME_CHAR = Pattern.compile("[^A-Z0-9_]");
  private static final int MAX_QUOTED_CHARS = 140;

  private ScriptEnvironment() {}

  /** The variable that carries param {@code paramName}. */
  public static String variableFor(String paramName) {
    return PARAM_PREFIX
        + NOT_A_NAME_CHAR.matcher(paramName.toUpperCase(Locale.ROOT)).replaceAll("_");
  }

  /** The environment for one attempt, or why the task's params cannot be passed. */
  public static Admission<Map<String, String>> forAttempt(ExecutionContext context) {
    Map<String, String> env = new TreeMap<>();
    env.put("PATH", PATH);
    env.put("LANG", LANG);
    env.put("AX_TASK_ID", context.taskId());
    env.put("AX_INSTANCE_ID", context.instanceId());
    env.put("AX_ATTEMPT", Integer.toString(context.attempt()));
    env.put("AX_SHARD_INDEX", Integer.toString(context.shardIndex()));
    env.put("AX_SHARD_TOTAL", Integer.toString(context.shardTotal()));
    if (context.traceId() != null) {
      env.put("AX_TRACE_ID", context.traceId());
      env.put("AX_TASK_TRACE_ID", context.taskTraceId());
      env.put("TRACEPARENT", context.traceparent());
    }
    env.put("AX_IDEMPOTENCY_KEY", context.idempotencyKey());
    env.put("AX_DEADLINE_MS", Long.toString(context.deadline().toEpochMilli()));
    for (Map.Entry<String, String> e : env.entrySet()) {
      if (e.getValue().indexOf('\0') >= 0) {
        return Admission.refused(e.getKey() + " contains a NUL character");
      }
    }
    Map<String, String> paramOf = new HashMap<>();
    // Sorted, so that a refusal names the same two params every time.
    for (Map.Entry<String, String> param : new TreeMap<>(context.params()).entrySet()) {
      String name = param.getKey();
      if (name.indexOf('\0') >= 0 || param.getValue().indexOf('\0') >= 0) {
        return Admission.refused(
            "param "
                + Quoting.quote(name, MAX_QUOTED_CHARS)
                + " contains a NUL character, which an environment variable cannot hold");
      }
      String variable = variableFor(name);
      String other = paramOf.putIfAbsent(variable, name);
      if (other != null) {
        return Admission.refused(
            "params "
                + Quoting.quote(other, MAX_QUOTED_CHARS)
                + " and "
                + Quoting.quote(name, MAX_QUOTED_CHARS)
                + " would both become "
                + variable
                + "; rename one");
      }
      env.put(variable, param.getValue());
    }
    return Admission.admitted(env);
  }
}
