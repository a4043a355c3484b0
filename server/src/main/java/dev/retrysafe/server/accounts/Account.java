package dev.retrysafe.server.accounts;

/**
 * A customer of the API; every resource belongs to exactly one.
 *
 * @param id {@code acct_...}
 * @param name a display name
 * @param plan {@code free}, {@code pro} or {@code enterprise}
 */
public record Account(String id, String name, String plan) {}
