package com.example.payments;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** A payments API on Spring Boot, made safe to retry by Retrysafe's starter. */
@SpringBootApplication
public class PaymentsApplication {

    /** Starts the application. */
    public static void main(String[] args) {
        SpringApplication.run(PaymentsApplication.class, args);
    }
}
