package dev.ax.embedded.junit;

import dev.ax.embedded.SharedInfrastructure;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Resolves {@link AxTestEnv} parameters of test methods, test constructors and lifecycle methods
 * ({@code @BeforeEach}, {@code @AfterEach}, and {@code @BeforeAll}/{@code @AfterAll} for a
 * class-wide env):
 *
 * <pre>{@code
 * @ExtendWith(AxInfraExtension.class)
 * class MyIT {
 *   @Test
 *   void works(AxTestEnv env) { ... }
 * }
 * }</pre>
 *
 * <p>Each test method (each invocation of a repeated or parameterized one) gets one env, created
 * when it is first asked for; its constructor, {@code @BeforeEach}, {@code @AfterEach} and the
 * method itself all receive that same env. The first env of a JVM starts the {@link
 * dev.ax.embedded.SharedInfrastructure}.
 *
 * <p>Where the shared servers cannot be had in this JVM ({@link SharedInfrastructure#skipReason()}:
 * {@code ax.it.testcontainers=true} without a Docker engine), every test class that uses this
 * extension is skipped with that reason, said once in the log, before its constructor or {@code
 * BeforeAll} asks for an env.
 *
 * <p>Thread-safe: tests may run in parallel.
 */
public final class AxInfraExtension implements ParameterResolver, ExecutionCondition {

  private static final ConditionEvaluationResult AVAILABLE =
      ConditionEvaluationResult.enabled("the shared servers can be had");

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(AxInfraExtension.class);

  /** Test constructors get the test method's context, so they share the method's env. */
  @Override
  public ExtensionContextScope getTestInstantiationExtensionContextScope(
      ExtensionContext rootContext) {
    return ExtensionContextScope.TEST_METHOD;
  }

  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    return SharedInfrastructure.skipReason()
        .map(ConditionEvaluationResult::disabled)
        .orElse(AVAILABLE);
  }

  @Override
  public boolean supportsParameter(
      ParameterContext parameterContext, ExtensionContext extensionContext) {
    return parameterContext.getParameter().getType() == AxTestEnv.class;
  }

  @Override
  public AxTestEnv resolveParameter(
      ParameterContext parameterContext, ExtensionContext extensionContext) {
    // Keyed by the context's own id: stores inherit their parents' values, and a method must not
    // inherit the env of its class's @BeforeAll.
    return extensionContext
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(
            extensionContext.getUniqueId(), id -> AxTestEnv.create(), AxTestEnv.class);
  }
}
