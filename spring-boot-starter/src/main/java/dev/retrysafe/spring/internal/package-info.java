/**
 * The starter's implementation: how a request finds its handler's annotations, how a keyed
 * request's transaction becomes Spring's, the schema, health and meters. Not an API.
 */
@NullMarked
package dev.retrysafe.spring.internal;

import org.jspecify.annotations.NullMarked;
