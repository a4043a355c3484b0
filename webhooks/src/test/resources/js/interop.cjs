'use strict';
// Drives the reference Standard Webhooks library (npm package standardwebhooks) for
// ReferenceLibraryInteropTest. Usage: node interop.cjs sign|verify < cases
// Each input line is one case: secret, id, timestamp, signature, body, each base64-encoded
// (so that any bytes survive), separated by single spaces. Prints one line per case: the
// signature (sign), or "ok" / "rejected: <message>" (verify).
const { Webhook } = require('standardwebhooks');

const mode = process.argv[2];
const decode = (field) => Buffer.from(field, 'base64');
const results = [];
for (const line of require('fs').readFileSync(0, 'utf8').split('\n')) {
  if (line === '') {
    continue;
  }
  const [secret, id, timestamp, signature, body] = line.split(' ').map(decode);
  const webhook = new Webhook(secret.toString('utf8'));
  if (mode === 'sign') {
    const at = new Date(Number(timestamp.toString('utf8')) * 1000);
    results.push(webhook.sign(id.toString('utf8'), at, body));
  } else if (mode === 'verify') {
    try {
      webhook.verify(body, {
        'webhook-id': id.toString('utf8'),
        'webhook-timestamp': timestamp.toString('utf8'),
        'webhook-signature': signature.toString('utf8'),
      }, { jsonParse: false });
      results.push('ok');
    } catch (e) {
      results.push('rejected: ' + e.message);
    }
  } else {
    throw new Error('mode must be sign or verify, was ' + mode);
  }
}
process.stdout.write(results.join('\n') + '\n');
