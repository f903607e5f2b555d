package dev.ax.api.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.common.config.ConfigException;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ApiTokensTest {

  private static final String ALICE = "alice-token-0123456789abcdef";
  private static final String BOB = "bob-token-0123456789abcdefgh";

  @Test
  void aTokenNamesItsCallerAndRoleAndAnUnknownOneNobody() {
    ApiTokens tokens =
        ApiTokens.parse(
            List.of("# who may call", "", ALICE + " alice operate", "  " + BOB + "\tbob  read  "),
            "tokens");
    assertThat(tokens.size()).isEqualTo(2);
    assertThat(tokens.caller(ALICE)).contains(new Caller("alice", true));
    assertThat(tokens.caller(BOB)).contains(new Caller("bob", false));
    assertThat(tokens.caller(ALICE + "x")).isEqualTo(Optional.empty());
    assertThat(tokens.caller("")).isEmpty();
  }

  @Test
  void aTokenReachesTheNamespacesItListsOrEveryOneWithAStarOrNoField() {
    ApiTokens tokens =
        ApiTokens.parse(
            List.of(
                ALICE + " alice read billing,shop",
                ALICE + "-two bob operate *",
                ALICE + "-three carol read"),
            "tokens");
    Caller alice = tokens.caller(ALICE).orElseThrow();
    assertThat(alice.mayUse(new dev.ax.common.model.Namespace("shop"))).isTrue();
    assertThat(alice.mayUse(dev.ax.common.model.Namespace.DEFAULT)).isFalse();
    assertThat(alice.everyNamespace()).isFalse();
    assertThat(tokens.caller(ALICE + "-two").orElseThrow().everyNamespace()).isTrue();
    assertThat(tokens.caller(ALICE + "-three").orElseThrow().everyNamespace()).isTrue();
  }

  @Test
  void aHeartbeatTokenReachesOnlyThePoolsItNames() {
    ApiTokens tokens =
        ApiTokens.parse(
            List.of(ALICE + " beat heartbeat render,mail", ALICE + "-all beat2 heartbeat *"),
            "tokens");
    Caller beat = tokens.caller(ALICE).orElseThrow();
    assertThat(beat.mayHeartbeat("render")).isTrue();
    assertThat(beat.mayHeartbeat("billing")).isFalse();
    assertThat(beat.mayOperate()).isFalse();
    assertThat(tokens.caller(ALICE + "-all").orElseThrow().mayHeartbeat("billing")).isTrue();
    assertThat(new Caller("reader", false, java.util.Set.of()).mayHeartbeat("render")).isFalse();
  }

  @Test
  void aBadLineIsRefusedByItsNumberWithoutShowingTheToken() {
    assertRefused(
        List.of(ALICE + " alice admin"),
        "tokens line 1: the role must be read, operate or heartbeat");
    assertRefused(List.of("short alice read"), "tokens line 1: the token is shorter than 20");
    assertRefused(
        List.of("#", ALICE + " alice"),
        "tokens line 2: expected `<token> <name> <role> [<namespaces>]`");
    assertRefused(
        List.of(ALICE + " alice read billing,Bad"),
        "tokens line 1: namespaces are `*` or names matching");
    assertRefused(List.of(ALICE + " al/ice read"), "tokens line 1: the name must be");
    assertRefused(
        List.of(ALICE + " beat heartbeat"),
        "tokens line 1: a heartbeat token names the executor pools it may register endpoints in");
    assertRefused(List.of(ALICE + " beat heartbeat render,Bad"), "tokens line 1: not a pool name");
    assertRefused(
        List.of(ALICE + " alice read", ALICE + " eve operate"),
        "tokens line 2: the same token is on an earlier line");
    assertRefused(List.of("# nobody"), "tokens holds no token");
  }

  private static void assertRefused(List<String> lines, String message) {
    assertThatThrownBy(() -> ApiTokens.parse(lines, "tokens"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(message)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(ALICE));
  }
}
