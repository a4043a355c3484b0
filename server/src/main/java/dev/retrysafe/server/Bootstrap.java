package dev.retrysafe.server;

import dev.retrysafe.server.accounts.Account;
import dev.retrysafe.server.accounts.AccountStore;
import dev.retrysafe.server.accounts.ApiKeys;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/** Accounts that must exist when the server starts. */
final class Bootstrap {

    /** Name of the file in the data folder holding the demo account's key. */
    static final String DEMO_KEY_FILE = "demo-api-key";

    private Bootstrap() {}

    /** One account per key, each with exactly that key; existing ones are kept. */
    static void ensureKeys(AccountStore accounts, List<String> keys) throws SQLException {
        int n = 1;
        for (String key : keys) {
            accounts.ensure(key, "bootstrap-" + n++, "free");
        }
    }

    /**
     * The {@code demo} account of the embedded mode: made on the first start with its key printed
     * and written to {@code <dataDir>/demo-api-key} (owner-only), kept on later starts.
     */
    static void ensureDemo(AccountStore accounts, Path dataDir, PrintStream out) throws SQLException, IOException {
        Path file = dataDir.resolve(DEMO_KEY_FILE);
        if (Files.isRegularFile(file)) {
            String key = Files.readString(file, StandardCharsets.UTF_8).strip();
            Optional<Account> existing = accounts.findByKeyHash(ApiKeys.hash(key));
            if (existing.isPresent()) {
                out.println("Demo account '" + existing.get().name() + "': API key in " + file.toAbsolutePath());
                return;
            }
        }
        String key = ApiKeys.generate();
        accounts.create("demo", "free", key);
        writeOwnerOnly(file, key + "\n");
        out.println("Created the demo account. Its API key (also in " + file.toAbsolutePath() + "):");
        out.println("  " + key);
    }

    private static void writeOwnerOnly(Path file, String content) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        try {
            Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
            Files.createFile(tmp); // not a POSIX file system: best effort
        }
        Files.writeString(tmp, content, StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
