package dev.ax.common.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Database.SCHEMA_VERSION is the newest migration file: stages skip Flyway by it. */
class SchemaVersionTest {

  private static final Pattern MIGRATION = Pattern.compile("V(\\d+)__.+\\.sql");

  @Test
  void theSchemaVersionIsTheNewestMigration() throws IOException {
    int newest;
    try (Stream<Path> files = Files.list(Path.of("src", "main", "resources", "db", "migration"))) {
      newest =
          files
              .map(file -> MIGRATION.matcher(file.getFileName().toString()))
              .filter(Matcher::matches)
              .mapToInt(m -> Integer.parseInt(m.group(1)))
              .max()
              .orElseThrow();
    }
    assertThat(Database.SCHEMA_VERSION).isEqualTo(newest);
  }
}
