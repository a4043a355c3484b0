/**
 * The starter's machinery: lifecycle adapters, filters, interceptors, meter binders and JSON
 * shapes behind the public beans. Not an API: anything here may change in any release.
 */
@NullMarked
package dev.retrysafe.spring.internal;

import org.jspecify.annotations.NullMarked;
