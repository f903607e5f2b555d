package dev.ax.common.testing;

import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.TaskStore;
import dev.ax.embedded.junit.AxTestEnv;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What a store IT starts from: the test's {@link TestRuntime} (its own migrated database) and the
 * task and instance stores over it, closed after the test. Register it on an instance field built
 * from the test's env, which {@code AxInfraExtension} hands to the test constructor:
 *
 * <pre>{@code
 * @RegisterExtension final StoreFixture store;
 *
 * MyStoreIT(AxTestEnv env) {
 *   store = StoreFixture.open(env);
 * }
 * }</pre>
 *
 * <p>One per test instance; not thread-safe beyond what its runtime and stores are.
 */
public record StoreFixture(TestRuntime runtime, TaskStore tasks, InstanceStore instances)
    implements AfterEachCallback {

  public static StoreFixture open(AxTestEnv env) {
    TestRuntime runtime = TestRuntime.open(env);
    return new StoreFixture(
        runtime, new TaskStore(runtime.dataSource()), new InstanceStore(runtime.dataSource()));
  }

  @Override
  public void afterEach(ExtensionContext context) {
    runtime.close();
  }
}
