/**
 * The herd: a simulation, in virtual time and without network, of many clients that a server
 * rejected at the same instant with the same {@code Retry-After}, coming back with one retry
 * strategy or another (issue 7). The clients' waits and budgets are the client module's own code.
 */
@NullMarked
package dev.retrysafe.bench.herd;

import org.jspecify.annotations.NullMarked;
