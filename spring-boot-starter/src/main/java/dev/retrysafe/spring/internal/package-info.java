/**
 * The starter's machinery: how a request finds its handler's annotations, how a keyed request's
 * transaction becomes Spring's, the schema, lifecycle adapters, filters, interceptors, health,
 * meter binders and JSON shapes behind the public beans. Not an API: anything here may change in
 * any release.
 */
@NullMarked
package dev.retrysafe.spring.internal;

import org.jspecify.annotations.NullMarked;
