package dev.retrysafe.server.cli;

import dev.retrysafe.webhooks.WebhookSecret;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** A parsed command line: what to do, with which configuration file. */
public sealed interface Command {

    /** The {@code --config} file, or {@code null} for the defaults. */
    @Nullable
    Path config();

    /**
     * {@code serve}: run the server until stopped.
     *
     * @param config the configuration file
     * @param port the {@code --port}, which wins over {@code PORT} and the file, or {@code null}
     */
    record Serve(@Nullable Path config, @Nullable Integer port) implements Command {}

    /** {@code migrate}: apply migrations and exit. @param config the configuration file */
    record Migrate(@Nullable Path config) implements Command {}

    /**
     * {@code create-account}: make an account and print its key.
     *
     * @param config the configuration file
     * @param name the account's name
     * @param plan its plan
     * @param newDatabase {@code --new-database}: make the embedded database when the data folder
     *     holds none yet (without it the command refuses, rather than write an account no server reads)
     */
    record CreateAccount(
            @Nullable Path config,
            String name,
            String plan,
            boolean newDatabase,
            @Nullable String rateLimitVersion) implements Command {

        /** An account on the set its creation time gives it. */
        public CreateAccount(@Nullable Path config, String name, String plan, boolean newDatabase) {
            this(config, name, plan, newDatabase, null);
        }
    }

    /**
     * {@code webhooks sign}: print the {@code webhook-signature} of the body on standard input.
     *
     * @param secrets the secrets to sign with, in order (several during a rotation)
     * @param id the {@code webhook-id}
     * @param timestamp the {@code webhook-timestamp}, seconds since the epoch
     */
    record WebhookSign(List<WebhookSecret> secrets, String id, long timestamp) implements Command {
        /** Copies the secrets. */
        public WebhookSign {
            secrets = List.copyOf(secrets);
        }

        @Override
        public @Nullable Path config() {
            return null;
        }
    }

    /**
     * {@code webhooks verify}: verify the body on standard input as a receiver would.
     *
     * @param secrets the secrets the receiver knows
     * @param id the {@code webhook-id}
     * @param timestamp the {@code webhook-timestamp} as received (the verifier judges it)
     * @param signature the {@code webhook-signature} as received
     * @param now the time to check the timestamp against, in seconds since the epoch, or
     *     {@code null} for the current time
     * @param noTolerance check the signature whatever the timestamp's age
     */
    record WebhookVerify(
            List<WebhookSecret> secrets,
            String id,
            String timestamp,
            String signature,
            @Nullable Long now,
            boolean noTolerance)
            implements Command {
        /** Copies the secrets. */
        public WebhookVerify {
            secrets = List.copyOf(secrets);
        }

        @Override
        public @Nullable Path config() {
            return null;
        }
    }

    /**
     * {@code webhooks listen}: receive webhooks on 127.0.0.1 until stopped, printing each one.
     *
     * @param secrets the secrets to verify with (several during a rotation)
     * @param port the port to listen on, 0 for a free one
     */
    record WebhookListen(List<WebhookSecret> secrets, int port) implements Command {
        /** Copies the secrets. */
        public WebhookListen {
            secrets = List.copyOf(secrets);
        }

        @Override
        public @Nullable Path config() {
            return null;
        }
    }

    /** {@code demo retry}: the retrying client against a local server that fails three times. */
    record DemoRetry() implements Command {
        @Override
        public @Nullable Path config() {
            return null;
        }
    }

    /**
     * {@code demo lost-answer}: a payment whose answers are lost, retried with one key.
     *
     * @param url the Retrysafe server to use, or {@code null} to start an embedded one
     * @param apiKey the API key for {@code url}, or {@code null}
     * @param timeoutMillis each attempt's timeout in milliseconds, or {@code null} for the demo's default
     */
    record DemoLostAnswer(
            @Nullable URI url,
            @Nullable String apiKey,
            @Nullable Integer timeoutMillis) implements Command {
        @Override
        public @Nullable Path config() {
            return null;
        }

        @Override
        public String toString() {
            return "DemoLostAnswer[url=" + url + ", apiKey=" + (apiKey == null ? null : "(hidden)") + ", timeoutMillis="
                    + timeoutMillis + "]";
        }
    }

    /** {@code --version}. */
    record Version() implements Command {
        @Override
        public @Nullable Path config() {
            return null;
        }
    }

    /** {@code --help}. */
    record Help() implements Command {
        @Override
        public @Nullable Path config() {
            return null;
        }
    }

    /** A command line that cannot be run. @param message what is wrong */
    record Invalid(String message) implements Command {
        @Override
        public @Nullable Path config() {
            return null;
        }
    }
}
