/**
 * What every route shares: problem answers (RFC 9457, with the Retrysafe server's types),
 * list paging and {@code GET /ready}.
 */
@NullMarked
package com.example.payments.api;

import org.jspecify.annotations.NullMarked;
