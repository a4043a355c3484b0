package dev.retrysafe.webhooks.internal;

import dev.retrysafe.webhooks.WebhookSigner;
import java.util.Base64;
import java.util.List;

/** The signer: one keyed HMAC per secret. Immutable and threadsafe. */
public final class DefaultSigner implements WebhookSigner {

    private final List<Hmac> hmacs;

    /** A signer with these keys, in this order (the caller's copies). */
    public DefaultSigner(List<byte[]> keys) {
        this.hmacs = keys.stream().map(Hmac::new).toList();
    }

    @Override
    public String sign(String id, long timestamp, byte[] body) {
        Ids.checkForSigning(id);
        if (timestamp < 0) {
            throw new IllegalArgumentException("timestamp must not be negative: " + timestamp);
        }
        StringBuilder header = new StringBuilder(hmacs.size() * 48);
        for (Hmac hmac : hmacs) {
            if (!header.isEmpty()) {
                header.append(' ');
            }
            header.append(SignatureHeader.V1)
                    .append(',')
                    .append(Base64.getEncoder().encodeToString(hmac.sign(id, timestamp, body)));
        }
        return header.toString();
    }
}
