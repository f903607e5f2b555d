package dev.ax.cli.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.ax.api.http.ApiKeys;
import dev.ax.common.config.AxConfig;
import dev.ax.common.config.CommonKeys;
import dev.ax.common.config.ConfigKey;
import dev.ax.common.config.ConfigKeySet;
import dev.ax.common.config.KnownKeys;
import dev.ax.deadletter.DeadLetterKeys;
import dev.ax.dispatcher.DispatcherKeys;
import dev.ax.ingest.IngestKeys;
import dev.ax.resolver.ResolverKeys;
import dev.ax.retry.RetryKeys;
import dev.ax.ticker.TickerKeys;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * ax-cli's class path is every deployable's (the image, {@code ./ax}): here every module's keys are
 * known, and docs/CONFIGURATION.md's table must list exactly them, with their defaults.
 */
class ConfigurationDocTest {

  private static final Pattern ROW = Pattern.compile("^\\| `(AX_[A-Z0-9_]+)` \\| ([^|]*) \\|");

  private static final List<Class<? extends ConfigKeySet>> MODULE_KEYS =
      List.of(
          CommonKeys.class,
          IngestKeys.class,
          TickerKeys.class,
          DispatcherKeys.class,
          RetryKeys.class,
          DeadLetterKeys.class,
          ResolverKeys.class,
          ApiKeys.class);

  @Test
  void everyModulesKeysAreKnownHere() {
    for (Class<? extends ConfigKeySet> keys : MODULE_KEYS) {
      assertThat(KnownKeys.all())
          .as("keys of %s", keys.getSimpleName())
          .containsAll(ConfigKeySet.keysOf(keys));
    }
  }

  @Test
  void oneEnvironmentServesEveryStage() {
    Map<String, String> env = new LinkedHashMap<>();
    for (ConfigKey<?> key : KnownKeys.all()) {
      if (key.defaultValue() != null && !key.name().equals(CommonKeys.CONFIG_FILE.name())) {
        env.put(key.name(), key.defaultValue());
      }
    }

    assertThatCode(() -> AxConfig.load(env, Map.of(), Map.of())).doesNotThrowAnyException();
  }

  @Test
  void theDocListsExactlyTheKnownKeysWithTheirDefaults() throws Exception {
    Map<String, String> documented = new LinkedHashMap<>();
    for (String line : Files.readAllLines(Path.of("..", "docs", "CONFIGURATION.md"))) {
      Matcher row = ROW.matcher(line);
      if (row.find()) {
        documented.put(row.group(1), row.group(2).trim());
      }
    }

    Map<String, ConfigKey<?>> known = new LinkedHashMap<>();
    KnownKeys.all().forEach(key -> known.put(key.name(), key));
    assertThat(documented.keySet())
        .as("keys in docs/CONFIGURATION.md's table")
        .containsExactlyInAnyOrderElementsOf(known.keySet());
    documented.forEach(
        (name, defaultCell) -> {
          String defaultValue = known.get(name).defaultValue();
          if (defaultValue.isEmpty()) {
            assertThat(defaultCell).as("default of %s", name).isEqualTo("(empty)");
          } else {
            assertThat(defaultCell).as("default of %s", name).startsWith("`" + defaultValue + "`");
          }
        });
  }
}
