package dev.retrysafe.liveevents.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ClientMessageTest {

    @Test
    void readsEveryKindOfMessage() {
        assertThat(parse("{\"type\":\"auth\",\"api_key\":\"rs_secret\"}"))
                .isEqualTo(new ClientMessage.Auth("rs_secret"));
        assertThat(parse("{\"type\":\"subscribe\",\"event_types\":[\"payment.*\"]}"))
                .isInstanceOfSatisfying(
                        ClientMessage.Subscribe.class,
                        s -> assertThat(s.filter().patterns()).containsExactly("payment.*"));
        assertThat(parse("{\"type\":\"resume\",\"after\":\"evt_01m8xe6fcftsr6qwz9twh40bzz\"}"))
                .isInstanceOfSatisfying(ClientMessage.Resume.class, r -> {
                    assertThat(r.after()).isEqualTo("evt_01m8xe6fcftsr6qwz9twh40bzz");
                    assertThat(r.filter()).as("all by default").isSameAs(TopicFilter.ALL);
                });
        assertThat(parse("{\"type\":\"ping\",\"id\":7}"))
                .isInstanceOfSatisfying(
                        ClientMessage.Ping.class,
                        p -> assertThat(p.id().asInt()).isEqualTo(7));
        assertThat(parse("{\"type\":\"ping\"}"))
                .isInstanceOfSatisfying(
                        ClientMessage.Ping.class, p -> assertThat(p.id()).isNull());
    }

    @Test
    void anAuthMessageNeverShowsItsKey() {
        assertThat(parse("{\"type\":\"auth\",\"api_key\":\"rs_secret\"}").toString())
                .doesNotContain("rs_secret");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "not json",
                "[]",
                "{}",
                "{\"type\":7}",
                "{\"type\":\"ping\"} trailing",
                "{\"type\":\"auth\"}",
                "{\"type\":\"auth\",\"api_key\":\"\"}",
                "{\"type\":\"subscribe\"}",
                "{\"type\":\"subscribe\",\"event_types\":[]}",
                "{\"type\":\"subscribe\",\"event_types\":[1]}",
                "{\"type\":\"subscribe\",\"event_types\":\"*\"}",
                "{\"type\":\"resume\"}",
                "{\"type\":\"resume\",\"after\":\"pay_1\"}",
                "{\"type\":\"resume\",\"after\":\"evt_1\",\"event_types\":[]}",
                "{\"type\":\"ping\",\"id\":{\"a\":1}}",
                "{\"type\":\"ping\",\"id\":1.5}",
                "{\"type\":\"ping\",\"type\":\"ping\"}"
            })
    void malformedMessagesAreInvalid(String text) {
        assertThat(parse(text))
                .isInstanceOfSatisfying(
                        ClientMessage.Invalid.class, i -> assertThat(i.code()).isEqualTo("invalid_message"));
    }

    @Test
    void anUnknownTypeSaysSo() {
        assertThat(parse("{\"type\":\"publish\"}"))
                .isInstanceOfSatisfying(
                        ClientMessage.Invalid.class, i -> assertThat(i.code()).isEqualTo("unknown_type"));
    }

    /** Event ids as the server's: {@code evt_} and 26 characters of Crockford base 32, lower case. */
    private static ClientMessage parse(String text) {
        return ClientMessage.parse(text, id -> id.matches("evt_[0-9a-hjkmnp-tv-z]{26}"));
    }
}
