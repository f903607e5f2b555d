package dev.ax.dispatcher.executor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What {@link OutputMask} hides in a run's output, and what it leaves. */
class OutputMaskTest {

  @Test
  void secretLookingAssignmentsKeepTheirNameAndLoseTheirValue() {
    OutputMask mask = OutputMask.patternsOnly();

    assertThat(mask.apply("password=hunter2 user=olga")).isEqualTo("password=*** user=olga");
    assertThat(mask.apply("DB_PASSWD: s3cr3t\nnext line")).isEqualTo("DB_PASSWD: ***\nnext line");
    assertThat(mask.apply("{\"api_key\": \"abc\", \"n\": 1}"))
        .as("a quoted value goes up to its quote")
        .isEqualTo("{\"api_key\": \"***\", \"n\": 1}");
    assertThat(mask.apply("Authorization: Bearer eyJhbGciOi.x.y"))
        .as("the scheme goes with the credential")
        .isEqualTo("Authorization: ***");
    assertThat(mask.apply("apiKey=1&token=2")).isEqualTo("apiKey=***&token=***");
    assertThat(mask.apply("X-Secret-Token:abc")).isEqualTo("X-Secret-Token:***");
  }

  @Test
  void textWithNothingSecretIsLeftAsItIs() {
    String text = "HTTP 200\nX-Request-Id: r-1\n\n{\"ok\":true,\"count\":3}";

    assertThat(OutputMask.patternsOnly().apply(text)).isSameAs(text);
    assertThat(OutputMask.patternsOnly().apply(null)).isNull();
    assertThat(OutputMask.patternsOnly().apply("")).isEmpty();
  }

  @Test
  void theValuesOfSecretParamsAndHeadersAreMaskedWhereverTheyAppear() {
    OutputMask mask =
        OutputMask.of(
            Map.of("dbPassword", "pa55-word", "region", "eu-west-1", "pin", "12"),
            Map.of("X-Api-Key", "key-123456", "Accept", "application/json"),
            List.of());

    assertThat(mask.apply("connected with pa55-word to eu-west-1; key was key-123456"))
        .as("values of secret names only: region is not one")
        .isEqualTo("connected with *** to eu-west-1; key was ***");
    assertThat(mask.apply("application/json")).isEqualTo("application/json");
  }

  @Test
  void tooShortValuesAreLeftAloneAndTheLongestSecretIsMaskedWhole() {
    OutputMask mask =
        OutputMask.of(
            Map.of("token", "ab", "secret", "abcdef", "secret2", "abcd"), Map.of(), List.of());

    assertThat(mask.apply("ab abcdef abcd")).isEqualTo("ab *** ***");
  }

  @Test
  void otherSecretsSuchAsTheSigningSecretAreMasked() {
    String signing = "0123456789abcdef0123456789abcdef";
    OutputMask mask = OutputMask.of(Map.of(), Map.of(), List.of(signing));

    assertThat(mask.apply("echo: " + signing + "!")).isEqualTo("echo: ***!");
    assertThat(mask.toString()).doesNotContain(signing);
  }

  @Test
  void namesThatLookSecret() {
    assertThat(List.of("password", "X-Auth-Token", "CLIENT_SECRET", "api-key", "Cookie"))
        .allMatch(OutputMask::looksSecret);
    assertThat(List.of("region", "Accept", "X-Request-Id", "keyboard"))
        .noneMatch(OutputMask::looksSecret);
  }
}
