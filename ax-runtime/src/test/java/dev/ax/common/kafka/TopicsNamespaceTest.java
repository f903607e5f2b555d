package dev.ax.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.Namespace;
import org.junit.jupiter.api.Test;

class TopicsNamespaceTest {

  private final Topics topics = new Topics("t1.");
  private final Namespace billing = new Namespace("billing");

  @Test
  void theDefaultNamespaceKeepsTodaysTopicsAndOthersGetTheirOwn() {
    assertThat(topics.commands(Namespace.DEFAULT)).isEqualTo("t1.ax.task.commands");
    assertThat(topics.completed(Namespace.DEFAULT)).isEqualTo("t1.ax.task.completed");
    assertThat(topics.commandsRejected(Namespace.DEFAULT))
        .isEqualTo("t1.ax.task.commands.rejected");
    assertThat(topics.ofNamespace(billing))
        .containsExactly(
            "t1.ax.billing.task.commands",
            "t1.ax.billing.task.commands.rejected",
            "t1.ax.billing.task.completed");
  }

  @Test
  void theNamespaceOfATopicComesFromItsNameAndOnlyForThisPrefix() {
    assertThat(topics.namespaceOfCommands("t1.ax.task.commands")).contains(Namespace.DEFAULT);
    assertThat(topics.namespaceOfCommands("t1.ax.billing.task.commands")).contains(billing);
    assertThat(topics.namespaceOfCompleted("t1.ax.billing.task.completed")).contains(billing);
    assertThat(topics.namespaceOfCommands("t1.ax.default.task.commands")).isEmpty();
    assertThat(topics.namespaceOfCommands("t2.ax.billing.task.commands")).isEmpty();
    assertThat(topics.namespaceOfCommands("t1.ax.Bad.task.commands")).isEmpty();
    assertThat(topics.namespaceOfCommands("t1.ax.billing.task.commands.rejected")).isEmpty();
    assertThat(topics.namespaceOfCompleted("t1.ax.billing.task.commands")).isEmpty();
  }

  @Test
  void thePatternsMatchEveryNamespacesTopicAndNothingElse() {
    assertThat(topics.commandsPattern().matcher("t1.ax.task.commands").matches()).isTrue();
    assertThat(topics.commandsPattern().matcher("t1.ax.billing.task.commands").matches()).isTrue();
    assertThat(topics.commandsPattern().matcher("t1.ax.billing.task.commands.rejected").matches())
        .isFalse();
    assertThat(topics.commandsPattern().matcher("t1xax.task.commands").matches()).isFalse();
    assertThat(topics.commandsPattern().matcher("t1.ax.a.b.task.commands").matches()).isFalse();
    assertThat(topics.completedPattern().matcher("t1.ax.billing.task.completed").matches())
        .isTrue();
    assertThat(topics.completedPattern().matcher("t1.ax.task.completed").matches()).isTrue();
  }

  @Test
  void qualifiedIdsRoundTrip() {
    assertThat(billing.qualify("job")).isEqualTo("billing~job");
    assertThat(Namespace.DEFAULT.qualify("job")).isEqualTo("job");
    assertThat(Namespace.of("billing~job@17")).isEqualTo(billing);
    assertThat(Namespace.localId("billing~job@17")).isEqualTo("job@17");
    assertThat(Namespace.of("job")).isEqualTo(Namespace.DEFAULT);
  }
}
