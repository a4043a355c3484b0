"""Summarises JFR execution samples (jfr print --json --events jdk.ExecutionSample) of a delivery
instance: the share of samples under each of the delivery path's stages (inclusive), and the
hottest top frames. Used by bench/delivery/run.sh --profile."""
import collections
import json
import sys

STAGES = [
    ("claim (choose, reserve, claim, read claimed)", "dev.retrysafe.delivery.internal.DispatchWork.claim"),
    ("attempt: sign", "dev.retrysafe.delivery.internal.DispatchWork.signer"),
    ("attempt: HTTP (HttpAttemptSender.send)", "dev.retrysafe.delivery.HttpAttemptSender.send"),
    ("store a failure (one transaction)", "dev.retrysafe.delivery.internal.AttemptStore.store"),
    ("store successes (batched)", "dev.retrysafe.delivery.internal.SuccessStore.writeBatch"),
    ("producer: commit an event", "dev.retrysafe.bench.delivery.Instance.commitOne"),
    ("JDBC execute (all)", "org.postgresql.jdbc.PgPreparedStatement.execute"),
    ("JDBC commit (all)", "org.postgresql.jdbc.PgConnection.commit"),
    ("pool: get a connection", "com.zaxxer.hikari.pool.HikariPool.getConnection"),
    ("Jetty client I/O (selector)", "org.eclipse.jetty.io.ManagedSelector"),
]

events = json.load(open(sys.argv[1]))["recording"]["events"]
inclusive = collections.Counter()
top = collections.Counter()
for e in events:
    trace = e["values"].get("stackTrace") or {"frames": []}
    names = [f["method"]["type"]["name"].replace("/", ".") + "." + f["method"]["name"] for f in trace["frames"]]
    if names:
        top[names[0]] += 1
    for label, prefix in STAGES:
        if any(n.startswith(prefix) for n in names):
            inclusive[label] += 1
total = len(events) or 1
print(f"== {len(events)} execution samples of Java code (JIT compiler, GC and kernel time are not in them)")
for label, _ in STAGES:
    print(f"{inclusive[label]:6d} {100 * inclusive[label] / total:5.1f}%  {label}")
print("== hottest top frames")
for name, n in top.most_common(20):
    print(f"{n:6d} {100 * n / total:5.1f}%  {name}")
