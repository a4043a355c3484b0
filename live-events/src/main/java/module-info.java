/**
 * Live events over WebSocket: per-account streams in order, resumable, with bounded buffers and
 * client limits, and signals between instances on PostgreSQL. Only the API package is exported.
 */
module dev.retrysafe.liveevents {
    requires static transitive org.jspecify;
    requires transitive java.sql;
    requires transitive jakarta.servlet;
    requires dev.retrysafe.common;
    requires dev.retrysafe.ratelimit;
    requires org.eclipse.jetty.ee10.websocket.jetty.server;
    requires org.eclipse.jetty.websocket.api;
    requires com.fasterxml.jackson.databind;
    requires org.postgresql.jdbc;
    requires org.slf4j;

    exports dev.retrysafe.liveevents;
}
