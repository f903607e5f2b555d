package dev.ax.common.contract;

/** What {@link CommandReader} made of one message: a command, or the reason it was rejected. */
public sealed interface CommandReadResult {

  record Accepted(TaskCommand command) implements CommandReadResult {}

  record Rejected(String reason) implements CommandReadResult {}
}
