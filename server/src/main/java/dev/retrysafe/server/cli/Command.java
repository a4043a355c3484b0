package dev.retrysafe.server.cli;

import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/** A parsed command line: what to do, with which configuration file. */
public sealed interface Command {

    /** The {@code --config} file, or {@code null} for the defaults. */
    @Nullable Path config();

    /** {@code serve}: run the server until stopped. @param config the configuration file */
    record Serve(@Nullable Path config) implements Command {
    }

    /** {@code migrate}: apply migrations and exit. @param config the configuration file */
    record Migrate(@Nullable Path config) implements Command {
    }

    /**
     * {@code create-account}: make an account and print its key.
     *
     * @param config the configuration file
     * @param name the account's name
     * @param plan its plan
     */
    record CreateAccount(@Nullable Path config, String name, String plan) implements Command {
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
