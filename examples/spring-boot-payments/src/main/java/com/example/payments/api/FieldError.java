package com.example.payments.api;

/**
 * One invalid field or parameter, listed in the {@code errors} member of a validation problem.
 *
 * @param field the JSON member or query parameter
 * @param detail what is wrong with it
 */
public record FieldError(String field, String detail) {}
