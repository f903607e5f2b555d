package dev.ax.ingest;

import dev.ax.common.contract.CommandReadResult;
import dev.ax.common.contract.Echo;
import dev.ax.common.contract.NamespaceQualifier;
import dev.ax.common.kafka.Topics;
import dev.ax.common.model.Namespace;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Where a command's namespace comes from: the topic it arrived on, never the message. A record from
 * a namespace that was not created ({@code ax namespace create}) is refused, and an accepted
 * command is {@linkplain NamespaceQualifier qualified} with its namespace before anything else
 * reads it. A task spec (CREATE, UPDATE) that names a calendar that does not exist in its namespace
 * is refused here too ({@link KnownCalendars}), so a stored task names existing calendars only.
 *
 * <p>Not thread-safe: ingest's consumer thread only.
 */
final class NamespaceIntake {

  private final Topics topics;
  private final KnownNamespaces known;
  private final KnownCalendars calendars;

  /** An intake that checks no calendar (every one a task names is taken to exist). */
  NamespaceIntake(Topics topics, KnownNamespaces known) {
    this(topics, known, null);
  }

  /**
   * @param calendars the calendars that exist; null: not checked
   */
  NamespaceIntake(Topics topics, KnownNamespaces known, KnownCalendars calendars) {
    this.topics = topics;
    this.known = known;
    this.calendars = calendars;
  }

  /**
   * The namespace {@code record} counts under in the metrics: its topic's, or {@code unknown} when
   * that namespace was not created.
   */
  String tagOf(ConsumerRecord<String, byte[]> record) {
    return topics
        .namespaceOfCommands(record.topic())
        .filter(known::exists)
        .map(Namespace::name)
        .orElse("unknown");
  }

  /** {@code read} as stored in the namespace of {@code record}'s topic, or why not. */
  CommandReadResult admit(ConsumerRecord<String, byte[]> record, CommandReadResult read) {
    Optional<Namespace> namespace = topics.namespaceOfCommands(record.topic());
    if (namespace.isEmpty()) {
      return new CommandReadResult.Rejected(
          "topic " + Echo.of(record.topic()) + " is no namespace's commands topic");
    }
    if (!known.exists(namespace.get())) {
      return new CommandReadResult.Rejected(
          "namespace "
              + namespace.get()
              + " does not exist: an operator creates it with 'ax namespace create "
              + namespace.get()
              + "'");
    }
    if (read instanceof CommandReadResult.Accepted accepted) {
      return withCalendars(NamespaceQualifier.qualify(namespace.get(), accepted.command()));
    }
    return read;
  }

  /** {@code read}, or its refusal when its spec names a calendar that does not exist. */
  private CommandReadResult withCalendars(CommandReadResult read) {
    if (calendars == null
        || !(read instanceof CommandReadResult.Accepted accepted)
        || accepted.command().spec() == null
        || accepted.command().spec().rules().calendars().isEmpty()) {
      return read;
    }
    List<String> missing = calendars.missing(accepted.command().spec().rules().calendars());
    return missing.isEmpty()
        ? read
        : new CommandReadResult.Rejected(KnownCalendars.reason(missing));
  }
}
