package dev.retrysafe.server.http;

/**
 * One invalid field or parameter, listed in the {@code errors} member of a validation problem.
 *
 * @param field the JSON member or query parameter, e.g. {@code amount}
 * @param detail what is wrong, for a human
 */
public record FieldError(String field, String detail) {}
