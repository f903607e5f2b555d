package dev.ax.cli.command;

import dev.ax.common.store.Database;
import picocli.CommandLine.Command;

/**
 * {@code ax migrate}: brings the database schema to this AX's version, once, before the stages
 * start (a deployment's migration job). Stages started with {@code AX_DB_MIGRATE=false} then only
 * check the version, and may run as a user without DDL rights. Runs on the main thread.
 */
@Command(
    name = "migrate",
    description = {
      "Bring the database schema (AX_JDBC_URL, AX_JDBC_USER, AX_JDBC_PASSWORD) to this AX's"
          + " version. Run it once per upgrade, before the stages, as a user with DDL rights; then"
          + " start the stages with AX_DB_MIGRATE=false.",
      "Safe to run twice, or from two places at once: a schema already current is left alone."
    })
public final class MigrateCommand extends WorkDirCommand {

  @Override
  public Integer call() {
    return CliDatabase.run(
        spec,
        workDir,
        "ax-migrate",
        (db, out) -> {
          Database.Migration migration = Database.migrate(db.dataSource);
          out.println(
              migration.applied() == 0
                  ? "schema at version " + migration.version() + ": already current"
                  : "schema at version "
                      + migration.version()
                      + ": applied "
                      + migration.applied()
                      + " migration(s)");
          return ExitCodes.OK;
        });
  }
}
