package dev.ax.common.kafka;

import dev.ax.common.model.Namespace;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;

/**
 * The Kafka ACLs AX needs, as {@link AclBinding}s for a broker that denies what no ACL allows: what
 * a namespace's tenant may do ({@link #tenant}), and what each AX stage needs and nothing more
 * ({@link #stage}), for the shared internal topics and for each namespace's own topics. {@link
 * AclCommands} prints them as {@code kafka-acls.sh} lines.
 *
 * <p>Derived from the stages' code (their consumer loops, producers' sends, the outbox relay, the
 * resolver's Kafka Streams application); docs/SECURITY.md holds the table {@link
 * AclCommands#markdownTable} renders. Idempotent producers (every AX producer is one) need no
 * {@code IDEMPOTENT_WRITE} on the cluster: since Kafka 3.0 (KIP-679) WRITE on any topic lets a
 * principal initialise an idempotent producer. Every stage a {@code StageRuntime} opens checks at
 * start that every shared topic exists ({@code TopicProvisioner}), so it gets DESCRIBE on each; the
 * topics must exist already (created by an administrator), since no stage gets CREATE on them.
 *
 * <p>Immutable and thread-safe: every call builds a new list from the {@link Topics} given.
 */
public final class AclTemplate {

  /** The processes that reach Kafka, each with its own principal. */
  public enum Stage {
    INGEST,
    TICKER,
    DISPATCHER,
    RETRY,
    DEADLETTER,
    RESOLVER,
    API,
    CLI_OPERATOR;

    /** {@code ingest}, ..., {@code cli-operator}. */
    public String id() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The stages that start through a {@code StageRuntime}, which checks every shared topic. */
    boolean checksTopicsAtStart() {
      return this != API && this != CLI_OPERATOR;
    }
  }

  /** The consumer group of the ticker's FIXED_DELAY chainer ({@code groupLoop("ticker-chain")}). */
  static final String TICKER_CHAIN = "ticker-chain";

  private final Topics topics;

  public AclTemplate(Topics topics) {
    this.topics = Objects.requireNonNull(topics, "topics");
  }

  /** Every shared topic: the ones a {@code StageRuntime} checks (and creates) at start. */
  Set<String> sharedTopics() {
    return topics.all(1).keySet();
  }

  /** Checks that {@code principal} names a type, as Kafka's do: {@code User:alice}. */
  static String checkPrincipal(String principal) {
    Objects.requireNonNull(principal, "principal");
    int colon = principal.indexOf(':');
    if (colon <= 0 || colon == principal.length() - 1 || principal.contains(" ")) {
      throw new IllegalArgumentException(
          "a principal is '<type>:<name>', e.g. User:alice: '" + principal + "'");
    }
    return principal;
  }

  /**
   * The tenant's bindings with consumer groups named {@code <namespace>.}...: see {@link
   * #tenant(Namespace, String, String)}.
   */
  public List<AclBinding> tenant(Namespace namespace, String principal) {
    return tenant(namespace, principal, namespace.name() + ".");
  }

  /**
   * What the tenant of {@code namespace} may do: produce commands to its commands topic (WRITE,
   * DESCRIBE), consume its completion events and its rejected commands (READ, DESCRIBE), in
   * consumer groups whose ids start with {@code groupPrefix} (READ). Nothing of another namespace,
   * nothing internal, no transactional id.
   *
   * @param principal the tenant's principal, e.g. {@code User:alice}
   * @param groupPrefix the start of every consumer group id the tenant may use, chosen by the
   *     operator; not blank, so the tenant cannot join AX's own groups or another tenant's
   */
  public List<AclBinding> tenant(Namespace namespace, String principal, String groupPrefix) {
    if (groupPrefix == null || groupPrefix.isBlank()) {
      throw new IllegalArgumentException("a tenant's consumer group prefix must not be blank");
    }
    return new AclGrants(principal)
        .write(topics.commands(namespace))
        .read(topics.completed(namespace))
        .read(topics.commandsRejected(namespace))
        .groupPrefix(groupPrefix)
        .bindings();
  }

  /**
   * Everything {@code stage} needs: its {@link #stageShared shared} bindings and, for each of
   * {@code namespaces}, its {@link #stageNamespace namespace} bindings, without repeats.
   */
  public List<AclBinding> stage(Stage stage, String principal, Collection<Namespace> namespaces) {
    Set<AclBinding> all = new LinkedHashSet<>(stageShared(stage, principal));
    for (Namespace namespace : namespaces) {
      all.addAll(stageNamespace(stage, principal, namespace));
    }
    return List.copyOf(new ArrayList<>(all));
  }

  /**
   * {@code stage}'s bindings on what every deployment has whatever its namespaces: the internal
   * topics, the default namespace's topics, the stage's consumer group, and the resolver's Kafka
   * Streams internal topics and transactional ids.
   */
  public List<AclBinding> stageShared(Stage stage, String principal) {
    AclGrants grants = new AclGrants(principal);
    switch (stage) {
      case INGEST ->
          // IngestStage: the commands in group ax-ingest; announcements, the dependency graph and
          // rejections (also its parking) out.
          grants
              .read(topics.commands())
              .group(topics.group("ingest"))
              .write(topics.scheduled())
              .write(topics.dependencies())
              .write(topics.commandsRejected());
      case TICKER ->
          // TickerStage: announcements read by assignment (no group), completions in group
          // ax-ticker-chain for FIXED_DELAY; due events, chained announcements, and the reaper's
          // completion and dead-letter events out.
          grants
              .read(topics.scheduled())
              .read(topics.completed())
              .group(topics.group(TICKER_CHAIN))
              .write(topics.due())
              .write(topics.scheduled())
              .write(topics.completed())
              .write(topics.deadletter())
              .write(topics.parked("ticker"));
      case DISPATCHER ->
          // DispatcherStage: due and due.retry in group ax-dispatcher, the dependency graph by
          // assignment (UpstreamTasks); hand-backs to due/due.retry, and the outcome events the
          // outbox relay sends: completed, flow.succeeded, retry, deadletter.
          grants
              .read(topics.due())
              .read(topics.dueRetry())
              .group(topics.group("dispatcher"))
              .read(topics.dependencies())
              .write(topics.due())
              .write(topics.dueRetry())
              .write(topics.completed())
              .write(topics.flowSucceeded())
              .write(topics.retry())
              .write(topics.deadletter())
              .write(topics.parked("dispatcher"));
      case RETRY ->
          grants
              .read(topics.retry())
              .group(topics.group("retry"))
              .write(topics.dueRetry())
              .write(topics.parked("retry"));
      case DEADLETTER ->
          grants
              .read(topics.deadletter())
              .group(topics.group("deadletter"))
              .write(topics.parked("deadletter"));
      case RESOLVER -> resolver(grants);
      case API ->
          // The API's commands (TaskCommands) and dead-letter replays (DeadLetterReplayer).
          grants.write(topics.commands()).write(topics.dueRetry());
      case CLI_OPERATOR ->
          // ax submit / ax task (commands), ax requeue (scheduled), ax dlq replay (due.retry).
          grants.write(topics.commands()).write(topics.scheduled()).write(topics.dueRetry());
    }
    if (stage.checksTopicsAtStart()) {
      grants.describe(sharedTopics());
    }
    return grants.bindings();
  }

  /**
   * ResolverStage, a Kafka Streams application with exactly-once v2 and application id {@code
   * ax-resolver} (the consumer group): flow.succeeded joined with the dependency graph (a global
   * table, read by assignment) into commands; its poison records to ax.parked.resolver; its state
   * store's changelog under the application id; transactional ids {@code <application
   * id>-<process>-<thread>}; cleanup.policy set on the dependencies topic at start.
   */
  private void resolver(AclGrants grants) {
    String applicationId = topics.group("resolver");
    grants
        .read(topics.flowSucceeded())
        .read(topics.dependencies())
        .group(applicationId)
        .write(topics.commands())
        .write(topics.parked("resolver"))
        .topic(topics.dependencies(), AclOperation.ALTER_CONFIGS)
        .topicPrefix(
            applicationId + "-",
            AclOperation.CREATE,
            AclOperation.READ,
            AclOperation.WRITE,
            AclOperation.DELETE,
            AclOperation.DESCRIBE,
            AclOperation.DESCRIBE_CONFIGS)
        .transactionalIdPrefix(applicationId + "-");
  }

  /**
   * {@code stage}'s bindings on {@code namespace}'s own topics: ingest reads its commands and
   * writes their rejections; the ticker reads its completion events (the FIXED_DELAY chainer) and
   * writes them (the reaper), the dispatcher writes them; the resolver, the API and an operator's
   * CLI write its commands; the retry and dead-letter stages touch none. For the default namespace
   * these are among {@link #stageShared}'s.
   */
  public List<AclBinding> stageNamespace(Stage stage, String principal, Namespace namespace) {
    AclGrants grants = new AclGrants(principal);
    switch (stage) {
      case INGEST ->
          grants.read(topics.commands(namespace)).write(topics.commandsRejected(namespace));
      case TICKER -> grants.read(topics.completed(namespace)).write(topics.completed(namespace));
      case DISPATCHER -> grants.write(topics.completed(namespace));
      case RESOLVER, API, CLI_OPERATOR -> grants.write(topics.commands(namespace));
      case RETRY, DEADLETTER -> {
        // These read and write internal topics only.
      }
    }
    return grants.bindings();
  }
}
