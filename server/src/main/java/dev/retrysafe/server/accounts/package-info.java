/**
 * Accounts and their API keys: keys are random, shown once, and stored only as SHA-256 hashes;
 * a request's key is hashed and looked up.
 */
@NullMarked
package dev.retrysafe.server.accounts;

import org.jspecify.annotations.NullMarked;
