package dev.retrysafe.client;

/** The transient failures an attempt is retried after. */
public enum FailureKind {
    /** No connection could be made (refused, unreachable, connect timeout). */
    CONNECT,
    /** No answer came within the attempt's timeout; the server may still have done the work. */
    TIMEOUT,
    /** The connection broke while the request or the answer was under way (reset, closed early). */
    RESET
}
