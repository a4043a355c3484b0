package dev.retrysafe.liveevents;

import jakarta.servlet.http.HttpServletRequest;
import java.sql.SQLException;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Who the caller of a stream is, as the application knows its callers: an account id, from the
 * upgrade request (the application's authentication ran before it) or from the API key the
 * client sends in its first message. The streams carry an account's news to its streams only.
 * Implementations are threadsafe.
 */
public interface Callers {

    /** The account the application authenticated for {@code upgrade}, or {@code null} if it did not. */
    @Nullable
    String accountOf(HttpServletRequest upgrade);

    /** The account whose key {@code apiKey} is, if any; never logs the key. */
    Optional<String> accountOfKey(String apiKey) throws SQLException;
}
