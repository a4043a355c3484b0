package dev.retrysafe.spring.app;

import dev.retrysafe.spring.RetrysafeCaller;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;

/** A small payments application on the starter, as an application would write it. */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({PaymentsController.class, Gates.class})
public class TestApp {

    /** The account is whatever X-Account says: the tests' stand-in for authentication. */
    @Bean
    RetrysafeCaller caller() {
        return request -> request.getHeader("X-Account");
    }

    @Bean
    InitializingBean paymentsTable(JdbcTemplate jdbc) {
        return () -> jdbc.execute("CREATE TABLE IF NOT EXISTS payments (id VARCHAR(64) PRIMARY KEY,"
                + " account VARCHAR(64), amount BIGINT)");
    }
}
