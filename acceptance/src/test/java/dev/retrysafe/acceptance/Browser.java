package dev.retrysafe.acceptance;

import dev.retrysafe.server.TestServer;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Function;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Headless Chromium for the dashboard tests: Debian's {@code /usr/bin/chromium} driven by its
 * {@code /usr/bin/chromedriver}, both named explicitly so Selenium Manager never downloads
 * anything, in a new profile folder deleted on close. Chromium is kept off the network: no
 * background requests (update checks, sync, field trials), and every host name but
 * {@code 127.0.0.1} and {@code localhost} resolves to nothing; the tests only open {@code http://127.0.0.1}.
 * {@code ./test} installs both packages when they are missing. Screenshots go to
 * {@link #SCREENSHOTS}, which is {@code acceptance/target/screenshots/} (Maven runs a module's tests
 * in its folder), kept after the run as the tests' artifacts. Not threadsafe.
 */
final class Browser implements AutoCloseable {

    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    /** Where {@link #screenshot} writes, relative to the module's folder: {@code acceptance/target/screenshots/}. */
    static final Path SCREENSHOTS = Path.of("target", "screenshots");

    private final ChromeDriver driver;
    private final Path profile;

    private Browser(ChromeDriver driver, Path profile) {
        this.driver = driver;
        this.profile = profile;
    }

    /** Starts Chromium with a window of {@code width} x {@code height}; fails when it is not installed. */
    static Browser start(int width, int height) throws IOException {
        for (Path p : new Path[] {CHROMIUM, CHROMEDRIVER}) {
            if (!Files.isExecutable(p)) {
                throw new IllegalStateException(p + " is missing: run ./test (it installs Debian's chromium and "
                        + "chromium-driver) or apt-get install chromium chromium-driver");
            }
        }
        Path profile = Files.createTempDirectory("retrysafe-chromium-");
        try {
            ChromeOptions options = new ChromeOptions();
            options.setBinary(CHROMIUM.toFile());
            options.addArguments(
                    "--headless=new",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-quic",
                    "--no-first-run",
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--disable-sync",
                    "--disable-default-apps",
                    "--disable-extensions",
                    "--disable-dev-shm-usage",
                    "--disable-client-side-phishing-detection",
                    "--no-default-browser-check",
                    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
                    "--user-data-dir=" + profile,
                    "--window-size=" + width + "," + height);
            ChromeDriverService service = new ChromeDriverService.Builder()
                    .usingDriverExecutable(CHROMEDRIVER.toFile())
                    .usingAnyFreePort()
                    .withLogFile(new File("target/chromedriver.log"))
                    .build();
            ChromeDriver driver = new ChromeDriver(service, options);
            driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
            driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(10));
            return new Browser(driver, profile);
        } catch (RuntimeException e) {
            TestServer.deleteTree(profile);
            throw e;
        }
    }

    ChromeDriver driver() {
        return driver;
    }

    /**
     * Waits until {@code condition} holds, for at most {@code within}, then fails; an element that
     * the page redrew meanwhile (stale) only means "ask again". Never sleeps a fixed time.
     */
    void waitUntil(Duration within, Function<WebDriver, Boolean> condition) {
        new WebDriverWait(driver, within)
                .ignoring(StaleElementReferenceException.class)
                .until(condition::apply);
    }

    /** Saves what the window shows as the PNG file {@code name} in {@link #SCREENSHOTS}; answers the file. */
    Path screenshot(String name) throws IOException {
        Files.createDirectories(SCREENSHOTS);
        Path file = SCREENSHOTS.resolve(name);
        Files.write(file, driver.getScreenshotAs(OutputType.BYTES));
        return file;
    }

    /** Quits Chromium and its driver and deletes the profile. */
    @Override
    public void close() {
        try {
            driver.quit();
        } finally {
            TestServer.deleteTree(profile);
        }
    }
}
