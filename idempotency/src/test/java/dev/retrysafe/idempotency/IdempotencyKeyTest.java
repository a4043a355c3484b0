package dev.retrysafe.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class IdempotencyKeyTest {

    static Stream<Arguments> validHeaderValues() {
        return Stream.of(
                Arguments.of("8e03978e-40d5-43e8-bc93-6894a57f9324", "8e03978e-40d5-43e8-bc93-6894a57f9324"),
                Arguments.of("\"8e03978e-40d5\"", "8e03978e-40d5"),
                Arguments.of("  abc\t", "abc"),
                Arguments.of(" \"abc\" ", "abc"),
                Arguments.of("\"a\\\"b\"", "a\"b"),
                Arguments.of("\"a\\\\b\"", "a\\b"),
                Arguments.of("\" spaced key \"", " spaced key "),
                Arguments.of("inner space", "inner space"),
                Arguments.of("a\"b", "a\"b"),
                Arguments.of("back\\slash", "back\\slash"),
                Arguments.of("~!@#$%^&*()_+{}|:<>?", "~!@#$%^&*()_+{}|:<>?"),
                Arguments.of("x".repeat(255), "x".repeat(255)),
                Arguments.of("\"" + "x".repeat(255) + "\"", "x".repeat(255)));
    }

    @ParameterizedTest(name = "[{index}] <{0}> is key <{1}>")
    @MethodSource("validHeaderValues")
    void acceptsBareAndSfStringForms(String header, String expectedKey) {
        assertThat(IdempotencyKey.parse(header)).isEqualTo(new KeyParse.Valid(new IdempotencyKey(expectedKey)));
    }

    static Stream<Arguments> invalidHeaderValues() {
        return Stream.of(
                Arguments.of("", "empty"),
                Arguments.of("   \t ", "empty"),
                Arguments.of("\"\"", "empty"),
                Arguments.of("x".repeat(256), "longer than 255"),
                Arguments.of("\"" + "x".repeat(256) + "\"", "longer than 255"),
                Arguments.of("caf\u00e9", "outside printable ASCII at index 3 (U+00E9)"),
                Arguments.of("a\u0001b", "outside printable ASCII at index 1 (U+0001)"),
                Arguments.of("tab\tinside", "outside printable ASCII at index 3 (U+0009)"),
                Arguments.of("del\u007f", "outside printable ASCII"),
                Arguments.of("\"caf\u00e9\"", "outside printable ASCII"),
                Arguments.of("\"unterminated", "no closing quote"),
                Arguments.of("\"a\\nb\"", "escape other than"),
                Arguments.of("\"ends in escape\\", "ends inside an escape"),
                Arguments.of("\"abc\";param=1", "after its closing quote"),
                Arguments.of("\"abc\"def\"", "after its closing quote"));
    }

    @ParameterizedTest(name = "[{index}] <{0}> is invalid: {1}")
    @MethodSource("invalidHeaderValues")
    void rejectsMalformedKeysWithAReason(String header, String reasonFragment) {
        KeyParse parsed = IdempotencyKey.parse(header);
        assertThat(parsed).isInstanceOf(KeyParse.Invalid.class);
        assertThat(((KeyParse.Invalid) parsed).reason()).contains(reasonFragment);
    }

    @Test
    void constructorRejectsInvalidValueNamingIt() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new IdempotencyKey(""))
                .withMessage("value is empty");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new IdempotencyKey("\n"))
                .withMessageContaining("value has a character outside printable ASCII at index 0 (U+000A)");
    }

    @Test
    void sameKeyOnTwoRoutesOrAccountsIsTwoScopes() {
        IdempotencyKey key = new IdempotencyKey("k");
        Scope payments = Scope.of("acct_1", "POST", "/v1/payments", key);
        assertThat(payments.route()).isEqualTo("POST /v1/payments");
        assertThat(payments).isNotEqualTo(Scope.of("acct_1", "POST", "/v1/refunds", key));
        assertThat(payments).isNotEqualTo(Scope.of("acct_2", "POST", "/v1/payments", key));
        assertThat(payments).isEqualTo(Scope.of("acct_1", "POST", "/v1/payments", new IdempotencyKey("k")));
    }

    @Test
    void scopeRejectsTextTheColumnsCannotHold() {
        IdempotencyKey key = new IdempotencyKey("k");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new Scope("", "POST /", key))
                .withMessageContaining("account");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new Scope("a", "x".repeat(513), key))
                .withMessageContaining("route");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new Scope("a\0b", "POST /", key))
                .withMessageContaining("account");
    }
}
