package dev.ax.embedded;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * A SASL_PLAINTEXT listener (PLAIN, the users given) beside the embedded broker's PLAINTEXT one,
 * with KRaft's {@code StandardAuthorizer} deciding every request by ACLs and denying what no ACL
 * allows ({@code allow.everyone.if.no.acl.found=false}): for tests of Kafka ACLs. Immutable.
 *
 * <p>The broker and its controller talk over the PLAINTEXT and CONTROLLER listeners as {@code
 * User:ANONYMOUS}, which is therefore a super user, and so is every user in {@code superUsers}
 * (e.g. {@code admin}): the PLAINTEXT listener ({@link EmbeddedKafka#bootstrapServers()}) is an
 * administrator's door, for a test's setup and checks only. Clients under test connect to {@link
 * #saslBootstrapServers()} as one of {@code plainUsers}.
 *
 * @param plainUsers the SASL/PLAIN users the broker accepts, name to password
 * @param superUsers the names, among {@code plainUsers}, the authorizer lets do anything
 */
public record AuthorizedSasl(int saslPort, Map<String, String> plainUsers, Set<String> superUsers) {

  /** The principal of every connection to the broker's PLAINTEXT and CONTROLLER listeners. */
  public static final String BROKER_PRINCIPAL = "User:ANONYMOUS";

  /** KRaft's ACL authorizer, which keeps the ACLs in the cluster metadata. */
  public static final String STANDARD_AUTHORIZER =
      "org.apache.kafka.metadata.authorizer.StandardAuthorizer";

  public AuthorizedSasl {
    plainUsers = Map.copyOf(plainUsers);
    superUsers = Set.copyOf(superUsers);
    if (!plainUsers.keySet().containsAll(superUsers)) {
      throw new IllegalArgumentException(
          "super users " + superUsers + " must be among the users " + plainUsers.keySet());
    }
  }

  /** The listener on a free loopback port. */
  public static AuthorizedSasl onFreePort(Map<String, String> plainUsers, Set<String> superUsers) {
    return new AuthorizedSasl(FreePorts.loopback(1).get(0), plainUsers, superUsers);
  }

  /** {@code 127.0.0.1:<saslPort>}. */
  public String saslBootstrapServers() {
    return "127.0.0.1:" + saslPort;
  }

  /**
   * The {@code super.users} setting: the broker's own principal, then each of {@link #superUsers}
   * as {@code User:<name>}, separated by {@code ;}.
   */
  public String superUsersSetting() {
    List<String> principals = new ArrayList<>();
    principals.add(BROKER_PRINCIPAL);
    new TreeSet<>(superUsers).forEach(user -> principals.add("User:" + user));
    return String.join(";", principals);
  }

  /**
   * The broker settings that add the listener and the authorizer to {@link KafkaBrokerProperties}.
   */
  Properties brokerProperties(int brokerPort, int controllerPort) {
    String plaintext = KafkaBrokerProperties.BROKER_LISTENER + "://127.0.0.1:" + brokerPort;
    String sasl = SecuredListeners.SASL_LISTENER + "://127.0.0.1:" + saslPort;
    Properties p = new Properties();
    p.setProperty(
        "listeners",
        String.join(
            ",",
            plaintext,
            KafkaBrokerProperties.CONTROLLER_LISTENER + "://127.0.0.1:" + controllerPort,
            sasl));
    p.setProperty("advertised.listeners", String.join(",", plaintext, sasl));
    p.setProperty(
        "listener.security.protocol.map",
        KafkaBrokerProperties.BROKER_LISTENER
            + ":PLAINTEXT,"
            + KafkaBrokerProperties.CONTROLLER_LISTENER
            + ":PLAINTEXT,"
            + SecuredListeners.SASL_LISTENER
            + ":SASL_PLAINTEXT");
    p.putAll(SecuredListeners.saslPlain(plainUsers));
    p.setProperty("authorizer.class.name", STANDARD_AUTHORIZER);
    p.setProperty("super.users", superUsersSetting());
    p.setProperty("allow.everyone.if.no.acl.found", "false");
    return p;
  }
}
