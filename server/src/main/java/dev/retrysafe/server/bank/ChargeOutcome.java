package dev.retrysafe.server.bank;

/** What the bank answered to a charge. */
public enum ChargeOutcome {
    /** The money was taken. */
    APPROVED,
    /** The bank refused; nothing was taken. Recorded, so a retry is declined again. */
    DECLINED,
    /** The bank could not process the charge; nothing was taken or recorded, so a retry may succeed. */
    UNAVAILABLE,
    /** The charge key was used before for another amount or currency; nothing was taken now. */
    KEY_REUSED
}
