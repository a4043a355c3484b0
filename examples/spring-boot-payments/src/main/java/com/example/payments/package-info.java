/**
 * A payments API on Spring Boot 4 that serves the same contract as the Retrysafe server
 * ({@code POST/GET /v1/payments}), made safe to retry by {@code retrysafe-spring-boot-starter}:
 * the payment, its stored answer and its {@code payment.succeeded} event commit in one
 * transaction of the application's own.
 */
@NullMarked
package com.example.payments;

import org.jspecify.annotations.NullMarked;
