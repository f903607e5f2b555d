package dev.ax.common.kafka;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Collects the ALLOW bindings of one principal, from any host, in the order they are added and
 * without repeats. Not thread-safe: one is built and read by one thread ({@link AclTemplate}).
 */
final class AclGrants {

  private final String principal;
  private final Set<AclBinding> bindings = new LinkedHashSet<>();

  AclGrants(String principal) {
    this.principal = AclTemplate.checkPrincipal(principal);
  }

  /** Consuming {@code topic}: READ, and DESCRIBE (which READ implies; listed for clarity). */
  AclGrants read(String topic) {
    return topic(topic, AclOperation.READ, AclOperation.DESCRIBE);
  }

  /** Producing to {@code topic}: WRITE, and DESCRIBE (which WRITE implies; listed for clarity). */
  AclGrants write(String topic) {
    return topic(topic, AclOperation.WRITE, AclOperation.DESCRIBE);
  }

  AclGrants describe(Collection<String> topics) {
    topics.forEach(topic -> topic(topic, AclOperation.DESCRIBE));
    return this;
  }

  AclGrants topic(String topic, AclOperation... operations) {
    return add(ResourceType.TOPIC, topic, PatternType.LITERAL, operations);
  }

  AclGrants topicPrefix(String prefix, AclOperation... operations) {
    return add(ResourceType.TOPIC, prefix, PatternType.PREFIXED, operations);
  }

  /** Joining and committing offsets in the consumer group {@code group}. */
  AclGrants group(String group) {
    return add(ResourceType.GROUP, group, PatternType.LITERAL, AclOperation.READ);
  }

  AclGrants groupPrefix(String prefix) {
    return add(ResourceType.GROUP, prefix, PatternType.PREFIXED, AclOperation.READ);
  }

  /** Transactions under ids starting with {@code prefix}: WRITE and DESCRIBE. */
  AclGrants transactionalIdPrefix(String prefix) {
    return add(
        ResourceType.TRANSACTIONAL_ID,
        prefix,
        PatternType.PREFIXED,
        AclOperation.WRITE,
        AclOperation.DESCRIBE);
  }

  List<AclBinding> bindings() {
    return List.copyOf(new ArrayList<>(bindings));
  }

  private AclGrants add(
      ResourceType type, String name, PatternType pattern, AclOperation... operations) {
    ResourcePattern resource = new ResourcePattern(type, name, pattern);
    for (AclOperation operation : operations) {
      bindings.add(
          new AclBinding(
              resource,
              new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW)));
    }
    return this;
  }
}
