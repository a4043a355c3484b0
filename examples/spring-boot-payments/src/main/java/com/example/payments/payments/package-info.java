/** Payments: {@code POST /v1/payments}, {@code GET /v1/payments/{id}} and {@code GET /v1/payments}. */
@NullMarked
package com.example.payments.payments;

import org.jspecify.annotations.NullMarked;
