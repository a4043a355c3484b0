package dev.retrysafe.acceptance;

import java.nio.file.Path;

/** The example application on its default store, an embedded H2 file. */
class ExampleAppOnH2Test extends ExampleAppContract {

    @Override
    ExampleApp.Store newStore(Path dir) {
        return new ExampleApp.H2(dir);
    }

    @Override
    void drop(ExampleApp.Store store) {
        // the file goes with the test's temporary folder
    }
}
