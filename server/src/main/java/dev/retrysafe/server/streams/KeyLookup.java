package dev.retrysafe.server.streams;

import dev.retrysafe.server.accounts.Account;
import java.sql.SQLException;
import java.util.Optional;

/** Looks an API key up for a stream that sends its key in a message. Implementations are threadsafe. */
@FunctionalInterface
public interface KeyLookup {

    /** The account whose key {@code apiKey} is, if any; never logs the key. */
    Optional<Account> account(String apiKey) throws SQLException;
}
