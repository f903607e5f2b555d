package dev.ax.ticker.reaper;

/** The kinds of rows retention deletes, each counted in {@code ax.retention.deleted{kind}}. */
enum RetentionKind {
  INSTANCES("instances"),
  AUDIT("audit"),
  RUN_OUTPUT("runoutput"),
  DEAD_LETTERS("deadletters"),
  TASKS("tasks"),
  VERSIONS("versions"),
  COMMANDS("commands"),
  DEPENDENCIES("dependencies"),
  OPERATOR_LOG("operatorlog"),
  SWITCH_RECORDS("switches");

  /** The metric tag. */
  final String tag;

  RetentionKind(String tag) {
    this.tag = tag;
  }
}
