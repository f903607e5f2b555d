package dev.ax.common.testing;

import static org.awaitility.Awaitility.await;

import dev.ax.common.kafka.AclTemplate;
import dev.ax.common.kafka.AclTemplate.Stage;
import dev.ax.common.kafka.KafkaConnection;
import dev.ax.common.model.Namespace;
import dev.ax.common.stage.StageContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.config.SaslConfigs;

/**
 * One SASL/PLAIN user per AX stage ({@code ax-<stage>}, a random password each), for running the
 * real stages under least privilege on a broker with ACLs ({@code
 * EmbeddedKafka.startWithAuthorizer} with {@link #plainUsers()} among its users): {@link #grant}
 * applies each stage's {@link AclTemplate} bindings to its own user, and {@link #context} hands a
 * stage a context whose Kafka clients log in as that user. Immutable after {@link #create()};
 * thread-safe.
 */
public final class StagePrincipals {

  private static final Duration DEADLINE = Duration.ofSeconds(30);

  private final Map<Stage, String> passwords;

  private StagePrincipals(Map<Stage, String> passwords) {
    this.passwords = Map.copyOf(passwords);
  }

  public static StagePrincipals create() {
    Map<Stage, String> passwords = new LinkedHashMap<>();
    for (Stage stage : Stage.values()) {
      passwords.put(stage, "ax-" + UUID.randomUUID());
    }
    return new StagePrincipals(passwords);
  }

  /** {@code ax-<stage>}: the SASL user of {@code stage}. */
  public static String user(Stage stage) {
    return "ax-" + stage.id();
  }

  /** {@code User:ax-<stage>}. */
  public static String principal(Stage stage) {
    return "User:" + user(stage);
  }

  /** Every stage's user with its password, for the broker's SASL/PLAIN listener. */
  public Map<String, String> plainUsers() {
    Map<String, String> users = new LinkedHashMap<>();
    passwords.forEach((stage, password) -> users.put(user(stage), password));
    return users;
  }

  /**
   * Creates, as {@code admin}, every stage's bindings ({@link AclTemplate#stage} for {@code
   * namespaces}) for its own user, and waits until the broker's authorizer has them all.
   *
   * @return the bindings created
   */
  public List<AclBinding> grant(Admin admin, AclTemplate template, Collection<Namespace> namespaces)
      throws Exception {
    List<AclBinding> bindings = new ArrayList<>();
    for (Stage stage : Stage.values()) {
      bindings.addAll(template.stage(stage, principal(stage), namespaces));
    }
    admin.createAcls(bindings).all().get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
    await("the stages' ACLs reach the broker's authorizer")
        .atMost(DEADLINE)
        .until(() -> admin.describeAcls(AclBindingFilter.ANY).values().get().containsAll(bindings));
    return bindings;
  }

  /** How {@code stage}'s clients reach the SASL listener at {@code saslBootstrapServers}. */
  public KafkaConnection connection(Stage stage, String saslBootstrapServers) {
    return saslPlain(saslBootstrapServers, user(stage), passwords.get(stage));
  }

  /** A SASL_PLAINTEXT connection as {@code user} with the PLAIN mechanism. */
  public static KafkaConnection saslPlain(String bootstrapServers, String user, String password) {
    return new KafkaConnection(
        bootstrapServers,
        Map.of(
            CommonClientConfigs.SECURITY_PROTOCOL_CONFIG,
            "SASL_PLAINTEXT",
            SaslConfigs.SASL_MECHANISM,
            "PLAIN",
            SaslConfigs.SASL_JAAS_CONFIG,
            plainJaas(user, password)));
  }

  /** The {@code sasl.jaas.config} line of a PLAIN login as {@code user}. */
  public static String plainJaas(String user, String password) {
    return "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
        + user
        + "\" password=\""
        + password
        + "\";";
  }

  /** {@code base} (e.g. {@code TestRuntime.context}) with Kafka reached as {@code stage}'s user. */
  public StageContext context(StageContext base, Stage stage, String saslBootstrapServers) {
    return new StageContext(
        base.common(),
        connection(stage, saslBootstrapServers),
        base.topics(),
        base.dataSource(),
        base.controlDataSource(),
        base.clock(),
        base.nodeId(),
        base.meters(),
        base.loops());
  }
}
