package dev.retrysafe.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RedisServerProcessTest {

    @Test
    void startsKillsAndRestartsOnTheSamePort() {
        try (RedisServerProcess redis = RedisServerProcess.start()) {
            // given a running server
            assertThat(redis.answersPing()).isTrue();
            assertThat(redis.uri()).isEqualTo("redis://127.0.0.1:" + redis.port());
            int port = redis.port();

            // when it is killed, then it no longer answers
            redis.kill();
            assertThat(redis.answersPing()).isFalse();

            // when it is restarted, then it answers on the same port
            redis.restart();
            assertThat(redis.port()).isEqualTo(port);
            assertThat(redis.answersPing()).isTrue();
        }
    }

    @Test
    void aFrozenServerAnswersNothingUntilThawed() {
        try (RedisServerProcess redis = RedisServerProcess.start()) {
            redis.freeze();
            assertThat(redis.answersPing()).isFalse();
            redis.thaw();
            assertThat(redis.answersPing()).isTrue();
        }
    }

    @Test
    void closeKillsTheServer() {
        RedisServerProcess redis = RedisServerProcess.start();
        redis.close();
        assertThat(redis.answersPing()).isFalse();
        redis.close(); // closing twice is harmless
    }

    @Test
    void twoServersGetDifferentPorts() {
        try (RedisServerProcess first = RedisServerProcess.start();
                RedisServerProcess second = RedisServerProcess.start()) {
            assertThat(first.port()).isNotEqualTo(second.port());
            assertThat(first.answersPing()).isTrue();
            assertThat(second.answersPing()).isTrue();
        }
    }
}
