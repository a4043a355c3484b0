/** Reports: slow work answered {@code 202} at once and run as a Retrysafe job ({@code /v1/reports}, {@code /v1/jobs}). */
@NullMarked
package com.example.payments.reports;

import org.jspecify.annotations.NullMarked;
