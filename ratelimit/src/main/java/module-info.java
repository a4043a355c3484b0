/** Rate limits: algorithms, policies, header rendering, in-memory store. No dependencies. */
module dev.retrysafe.ratelimit {
    requires static transitive org.jspecify;

    exports dev.retrysafe.ratelimit;
}
