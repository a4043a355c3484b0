package dev.retrysafe.spring;

import dev.retrysafe.testkit.PostgresTestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The request side on a throwaway PostgreSQL database. */
class PostgresRequestSideTest extends RequestSideContract {

    private static final PostgresTestDatabase DATABASE = PostgresTestDatabase.create();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", DATABASE::jdbcUrl);
        registry.add("spring.datasource.username", DATABASE::user);
    }

    @AfterAll
    static void dropDatabase() {
        DATABASE.close();
    }
}
