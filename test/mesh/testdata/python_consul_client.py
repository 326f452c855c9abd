"""Drives Cairn's discovery service with Debian's python3-consul (0.7.1) and prints
what the library returned, as one JSON object, for test/mesh/reference-clients.test.ts.

Environment: PROXY_PORT (the header-renaming proxy on 127.0.0.1), MESH_TOKEN (a
management token). Run with /usr/bin/python3 (the system interpreter that has the
package). Values the library returns as bytes are decoded to text; a call that raises
is recorded as {"error": "<exception class>: <text>"} so the test shows what failed.
"""
import json
import os
import threading
import time

import consul
from consul.base import CB

TOKEN = os.environ["MESH_TOKEN"]
c = consul.Consul(host="127.0.0.1", port=int(os.environ["PROXY_PORT"]), token=TOKEN)
# 0.7.1 sends ?token= only on some calls (not on sessions, agent deregister, ...); its
# users put the header on the library's requests session, as here.
c.http.session.headers["X-Consul-Token"] = TOKEN

out = {}


def plain(v):
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    return v


def rec(name, fn):
    try:
        out[name] = plain(fn())
    except Exception as err:  # noqa: BLE001 - recorded for the test to show
        out[name] = {"error": "%s: %s" % (type(err).__name__, err)}
    return out[name]


def rec_until(name, fn, want):
    """rec, retried for up to 10 s until the result equals want: the agent syncs its
    changes to the catalog just after answering, in the reference as here."""
    deadline = time.monotonic() + 10
    while rec(name, fn) != want and time.monotonic() < deadline:
        time.sleep(0.05)
    return out[name]


# Agent services with TTL checks; the library's check helpers send lower-case keys.
rec("register_api1", lambda: c.agent.service.register("api", service_id="api1", port=9000, tags=["v1"], check=consul.Check.ttl("30s")))
rec("register_api2", lambda: c.agent.service.register("api", service_id="api2", port=9001, tags=["v2"], check=consul.Check.ttl("30s")))
rec("agent_services", lambda: sorted(c.agent.services().keys()))
rec("agent_checks", lambda: sorted(c.agent.checks().keys()))
# 0.7.1 marks TTL checks with GET; the reference (>= 1.0) allows only PUT there.
rec("ttl_pass_get", lambda: c.agent.check.ttl_pass("service:api1", "fine"))
rec("ttl_pass_put", lambda: c.http.put(CB.bool(), "/v1/agent/check/pass/service:api1", params={"note": "fine"}))
rec_until("health_passing", lambda: [e["Service"]["ID"] for e in c.health.service("api", passing=True)[1]], ["api1"])
rec("health_all", lambda: sorted(e["Service"]["ID"] for e in c.health.service("api")[1]))
rec("health_tag", lambda: [e["Service"]["ID"] for e in c.health.service("api", tag="v2")[1]])
rec("health_checks", lambda: sorted((x["CheckID"], x["Status"]) for x in c.health.checks("api")[1]))
rec("health_state_critical", lambda: [x["CheckID"] for x in c.health.state("critical")[1]])
rec("health_node", lambda: sorted(x["CheckID"] for x in c.health.node("test")[1]))

# The agent itself, a node check, service and node maintenance.
rec("agent_self", lambda: [c.agent.self()["Config"][k] for k in ("Datacenter", "NodeName")])
rec("status", lambda: [c.status.leader(), c.status.peers()])
rec("agent_members", lambda: [(m["Name"], m["Status"]) for m in c.agent.members()])
rec("check_register", lambda: c.agent.check.register("memory", check=consul.Check.ttl("60s"), check_id="mem", notes="RAM"))
rec("check_fail", lambda: c.http.put(CB.bool(), "/v1/agent/check/fail/mem", params={"note": "oom"}))
rec("check_listed", lambda: {k: c.agent.checks()["mem"][k] for k in ("Name", "Status", "Output", "Notes")})
rec_until("health_passing_node_critical", lambda: c.health.service("api", passing=True)[1], [])
rec("check_deregister_get", lambda: c.agent.check.deregister("mem"))
rec("check_deregister_put", lambda: c.http.put(CB.bool(), "/v1/agent/check/deregister/mem"))
rec("service_maintenance_on", lambda: c.agent.service.maintenance("api1", "true", reason="upgrade"))
rec_until("maintenance_checks", lambda: [(x["CheckID"], x["Status"], x["Notes"]) for x in c.health.checks("api")[1] if x["CheckID"].startswith("_")], [["_service_maintenance:api1", "critical", "upgrade"]])
rec("service_maintenance_off", lambda: c.agent.service.maintenance("api1", "false"))
rec("node_maintenance_on", lambda: c.agent.maintenance(True, reason="reboot"))
rec_until("node_maintenance_checks", lambda: [(x["CheckID"], x["Status"]) for x in c.health.node("test")[1] if x["CheckID"].startswith("_")], [["_node_maintenance", "critical"]])
rec("node_maintenance_off", lambda: c.agent.maintenance(False))
rec_until("health_passing_after_maintenance", lambda: [e["Service"]["ID"] for e in c.health.service("api", passing=True)[1]], ["api1"])
rec("service_deregister_get", lambda: c.agent.service.deregister("api2"))
rec("service_deregister_put", lambda: c.http.put(CB.bool(), "/v1/agent/service/deregister/api2"))
rec("agent_services_after", lambda: sorted(c.agent.services().keys()))

# Checks the agent runs, from the library's helpers (lower-case keys, Go durations).
port = int(os.environ["PROXY_PORT"])
rec("register_tcp", lambda: c.agent.service.register("tcpsvc", service_id="tcp1", port=port, check=consul.Check.tcp("127.0.0.1", port, "1s", timeout="1s", deregister="10m")))
rec("register_http", lambda: c.agent.service.register("httpsvc", service_id="http1", port=port, check=consul.Check.http("http://127.0.0.1:%d/v1/status/leader" % port, "1s", timeout="2s")))
rec("register_http_bad", lambda: c.agent.service.register("httpsvc", service_id="http2", port=port, check=consul.Check.http("http://127.0.0.1:%d/v1/no-such-path" % port, "1s")))
rec_until("tcp_passing", lambda: [e["Service"]["ID"] for e in c.health.service("tcpsvc", passing=True)[1]], ["tcp1"])
rec_until("http_passing", lambda: [e["Service"]["ID"] for e in c.health.service("httpsvc", passing=True)[1]], ["http1"])
rec_until("http_bad_status", lambda: [x["Status"] for x in c.health.checks("httpsvc")[1] if x["ServiceID"] == "http2"], ["critical"])
rec("http_check_definition", lambda: {k: c.agent.checks()["service:http1"].get(k) for k in ("Type", "Interval", "Timeout")})
for sid in ("tcp1", "http1", "http2"):
    c.http.put(CB.bool(), "/v1/agent/service/deregister/" + sid)

# Catalog: the library sends lower-case top-level keys and a WriteRequest object.
rec("catalog_register", lambda: c.catalog.register(
    "pyext", "10.2.0.1",
    service={"Service": "cache", "ID": "cache1", "Port": 6379, "Tags": ["lru"]},
    check={"Node": "pyext", "CheckID": "service:cache1", "Name": "cache alive", "Status": "passing", "ServiceID": "cache1"}))
rec("catalog_datacenters", lambda: c.catalog.datacenters())
rec("catalog_nodes", lambda: sorted(n["Node"] for n in c.catalog.nodes()[1]))
rec("catalog_services", lambda: c.catalog.services()[1])
rec("catalog_service", lambda: [(s["Node"], s["ServiceID"], s["ServicePort"], s["Address"]) for s in c.catalog.service("cache", tag="lru")[1]])
rec("catalog_node", lambda: sorted(c.catalog.node("pyext")[1]["Services"].keys()))
rec("catalog_deregister", lambda: c.catalog.deregister("pyext"))
rec("catalog_nodes_after", lambda: sorted(n["Node"] for n in c.catalog.nodes()[1]))

# KV
rec("kv_put", lambda: c.kv.put("py/conf/a", "1"))
idx, a = c.kv.get("py/conf/a")
out["kv_get"] = plain({k: a[k] for k in ("Key", "Value", "Flags", "LockIndex")})
out["kv_get_index_matches"] = int(idx) == a["ModifyIndex"]
rec("kv_missing", lambda: c.kv.get("py/missing")[1])
rec("kv_cas_old", lambda: c.kv.put("py/conf/a", "2", cas=a["ModifyIndex"] - 1))
rec("kv_cas_ok", lambda: c.kv.put("py/conf/a", "2", cas=a["ModifyIndex"]))
rec("kv_cas_create_exists", lambda: c.kv.put("py/conf/a", "3", cas=0))
rec("kv_put_flags", lambda: c.kv.put("py/conf/b", "x", flags=7))
rec("kv_flags", lambda: c.kv.get("py/conf/b")[1]["Flags"])
rec("kv_put_none", lambda: c.kv.put("py/dir/", None))
rec("kv_keys", lambda: c.kv.get("py/", keys=True)[1])
rec("kv_keys_sep", lambda: c.kv.get("py/", keys=True, separator="/")[1])
rec("kv_recurse", lambda: [(e["Key"], e["Value"]) for e in c.kv.get("py/conf/", recurse=True)[1]])
idx2, _ = c.kv.get("py/conf/a")
rec("kv_blocking_timeout_same_index", lambda: c.kv.get("py/conf/a", index=idx2, wait="200ms")[0] == idx2)
# A blocking read woken by a write from another thread.
threading.Timer(0.3, lambda: c.kv.put("py/conf/a", "woken")).start()
idx3, woken = c.kv.get("py/conf/a", index=idx2, wait="10s")
out["kv_blocking_woken"] = [int(idx3) > int(idx2), plain(woken["Value"])]
b = c.kv.get("py/conf/b")[1]
rec("kv_delete_cas_old", lambda: c.kv.delete("py/conf/b", cas=b["ModifyIndex"] + 1))
rec("kv_delete_cas_ok", lambda: c.kv.delete("py/conf/b", cas=b["ModifyIndex"]))
rec("kv_delete_recurse", lambda: c.kv.delete("py/", recurse=True))
rec("kv_keys_after", lambda: c.kv.get("py/", keys=True)[1])

# Sessions and a lock
sid = rec("session_create", lambda: c.session.create(name="py-lock", ttl=30, lock_delay=0, behavior="delete"))
other = rec("session_create_other", lambda: c.session.create(name="py-other", lock_delay=0))
rec("session_info", lambda: {k: c.session.info(sid)[1][k] for k in ("ID", "Name", "Node", "TTL", "Behavior", "LockDelay")})
rec("session_node", lambda: sid in [s["ID"] for s in c.session.node("test")[1]])
rec("session_list", lambda: sid in [s["ID"] for s in c.session.list()[1]])
rec("session_renew", lambda: {k: c.session.renew(sid)[k] for k in ("ID", "TTL")})
rec("lock_acquire", lambda: c.kv.put("py/leader", "me", acquire=sid))
rec("lock_acquire_other", lambda: c.kv.put("py/leader", "them", acquire=other))
rec("lock_held", lambda: {k: c.kv.get("py/leader")[1].get(k) for k in ("Value", "Session", "LockIndex")})
rec("lock_release", lambda: c.kv.put("py/leader", "me", release=sid))
rec("lock_after_release", lambda: {k: c.kv.get("py/leader")[1].get(k) for k in ("Session", "LockIndex")})
rec("lock_reacquire", lambda: c.kv.put("py/leader", "me", acquire=sid))
rec("session_destroy", lambda: c.session.destroy(sid))
rec("session_info_after", lambda: c.session.info(sid)[1])
# Behavior "delete": destroying the holder deleted the key.
rec("lock_key_after_destroy", lambda: c.kv.get("py/leader")[1])
rec("session_renew_gone", lambda: c.session.renew(sid))
rec("session_destroy_other", lambda: c.session.destroy(other))

# A session tied to a service check: the check going critical ends it and frees its lock.
c.http.put(CB.bool(), "/v1/agent/check/pass/service:api1")
rec_until("api1_passing_in_catalog", lambda: [x["Status"] for x in c.health.checks("api")[1] if x["CheckID"] == "service:api1"], ["passing"])
tied = rec("session_tied", lambda: c.session.create(name="tied", checks=["serfHealth", "service:api1"], lock_delay=0))
rec("tied_acquire", lambda: c.kv.put("py/tied-lock", "x", acquire=tied))
c.http.put(CB.bool(), "/v1/agent/check/fail/service:api1")
rec_until("tied_lock_after_fail", lambda: c.kv.get("py/tied-lock")[1].get("Session"), None)
rec("tied_session_after_fail", lambda: c.session.info(tied)[1])

# A limited token (LIMITED_TOKEN: read on "py-public/" only), sent as ?token= by the library.
limited = consul.Consul(host="127.0.0.1", port=int(os.environ["PROXY_PORT"]), token=os.environ["LIMITED_TOKEN"])
c.kv.put("py-public/motd", "hi")
c.kv.put("py-private/secret", "shh")
rec("limited_get", lambda: limited.kv.get("py-public/motd")[1]["Value"])
rec("limited_put", lambda: limited.kv.put("py-public/motd", "defaced"))
rec("limited_get_private", lambda: limited.kv.get("py-private/secret"))
rec("limited_recurse", lambda: [e["Key"] for e in limited.kv.get("py-p", recurse=True)[1]])
rec("value_after_refusal", lambda: c.kv.get("py-public/motd")[1]["Value"])

# Naming the datacenter (?dc= and a Datacenter field) and stale reads.
dcc = consul.Consul(host="127.0.0.1", port=int(os.environ["PROXY_PORT"]), token=TOKEN, dc="dc1", consistency="stale")
rec("dc_catalog_register", lambda: dcc.catalog.register("pydc", "10.3.0.1"))
rec("dc_catalog_nodes", lambda: "pydc" in [n["Node"] for n in dcc.catalog.nodes()[1]])
# deregister sends its token only in the body's WriteRequest, which the reference does not read.
rec("dc_catalog_deregister_body_token", lambda: dcc.catalog.deregister("pydc"))
dcc.http.session.headers["X-Consul-Token"] = TOKEN
rec("dc_catalog_deregister", lambda: dcc.catalog.deregister("pydc"))
rec("dc_kv_put", lambda: dcc.kv.put("py-dc/x", "1"))
rec("dc_kv_get_stale", lambda: dcc.kv.get("py-dc/x")[1]["Value"])
other_dc = consul.Consul(host="127.0.0.1", port=int(os.environ["PROXY_PORT"]), token=TOKEN, dc="dc9")
rec("unknown_dc", lambda: other_dc.kv.get("py-dc/x"))

print(json.dumps(out))
