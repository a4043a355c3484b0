package dev.retrysafe.acceptance;

import java.nio.file.Path;

/** The example application on H2 (PostgreSQL mode). */
class ExampleAppOnH2Test extends ExampleAppContract {

    @Override
    ExampleApp.Store newStore(Path dir) {
        return ExampleApp.H2.serve(dir);
    }

    @Override
    void drop(ExampleApp.Store store) {
        ((ExampleApp.H2) store).server().stop(); // its file goes with the test's temporary folder
    }
}
