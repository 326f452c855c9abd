"""Drives the secrets service with Debian's python3-hvac (0.11), the reference product's
most used Python client, through the header-renaming proxy at 127.0.0.1:$PROXY_PORT with
the root token $SECRETS_TOKEN. Prints one JSON object: what each hvac call returned (the
values the test asserts), or for a refused call [exception class, errors]. Run by
test/secrets/reference-clients.test.ts; any other exception ends the script non-zero."""
import json
import os

import hvac

client = hvac.Client(url="http://127.0.0.1:%s" % os.environ["PROXY_PORT"], token=os.environ["SECRETS_TOKEN"])
out = {}


def refused(call):
    """[class name, errors] of the hvac exception `call` raised; None when it succeeded."""
    try:
        call()
    except hvac.exceptions.VaultError as e:
        return [type(e).__name__, e.errors]
    return None


# KV v2 at secret/ (made by the test server): create, a refused check-and-set, versions,
# delete/undelete/destroy, metadata.
kv = client.secrets.kv.v2
out["kv_created"] = kv.create_or_update_secret(path="app/db", secret={"password": "p1"})["data"]
out["kv_updated"] = kv.create_or_update_secret(path="app/db", secret={"password": "p2"}, cas=1)["data"]
out["kv_cas_refused"] = refused(lambda: kv.create_or_update_secret(path="app/db", secret={"password": "x"}, cas=1))
latest = kv.read_secret_version(path="app/db")["data"]
out["kv_read"] = {"data": latest["data"], "version": latest["metadata"]["version"]}
out["kv_read_v1"] = kv.read_secret_version(path="app/db", version=1)["data"]["data"]
kv.delete_latest_version_of_secret(path="app/db")
out["kv_read_deleted"] = refused(lambda: kv.read_secret_version(path="app/db"))
kv.undelete_secret_versions(path="app/db", versions=[2])
out["kv_undeleted"] = kv.read_secret_version(path="app/db")["data"]["data"]
kv.delete_secret_versions(path="app/db", versions=[1])
kv.destroy_secret_versions(path="app/db", versions=[1])
kv.update_metadata(path="app/db", max_versions=5, cas_required=True)
meta = kv.read_secret_metadata(path="app/db")["data"]
out["kv_metadata"] = {
    "current_version": meta["current_version"],
    "max_versions": meta["max_versions"],
    "cas_required": meta["cas_required"],
    "versions": {k: {"destroyed": v["destroyed"], "deleted": v["deletion_time"] != ""} for k, v in meta["versions"].items()},
}
out["kv_cas_required"] = refused(lambda: kv.create_or_update_secret(path="app/db", secret={"password": "no-cas"}))
out["kv_list"] = kv.list_secrets(path="app")["data"]["keys"]
kv.delete_metadata_and_all_versions(path="app/db")
out["kv_gone"] = refused(lambda: kv.read_secret_metadata(path="app/db"))

# Tokens: create, lookup, renew, renew and lookup by accessor, revoke; revoke by accessor.
token = client.auth.token
made = token.create(policies=["default"], ttl="1h", renewable=True, meta={"app": "hvac"})["auth"]
out["token_created"] = {k: made[k] for k in ("policies", "lease_duration", "renewable", "metadata")}
looked = token.lookup(made["client_token"])["data"]
out["token_lookup"] = {
    "id_matches": looked["id"] == made["client_token"],
    "accessor_matches": looked["accessor"] == made["accessor"],
    "policies": looked["policies"],
    "creation_ttl": looked["creation_ttl"],
    "meta": looked["meta"],
}
out["token_renewed"] = token.renew(made["client_token"], increment="2h")["auth"]["lease_duration"]
renewed_by_accessor = token.renew_accessor(made["accessor"], increment="3h")["auth"]
out["token_renewed_by_accessor"] = {"client_token": renewed_by_accessor["client_token"], "lease_duration": renewed_by_accessor["lease_duration"]}
by_accessor = token.lookup_accessor(made["accessor"])["data"]
out["token_lookup_accessor"] = {"id": by_accessor["id"], "policies": by_accessor["policies"], "accessor_matches": by_accessor["accessor"] == made["accessor"]}
token.revoke(made["client_token"])
out["token_revoked_lookup"] = refused(lambda: token.lookup(made["client_token"]))
other = token.create(policies=["default"], ttl="1h")["auth"]
token.revoke_accessor(other["accessor"])
out["token_revoked_by_accessor"] = refused(lambda: token.lookup_accessor(other["accessor"]))

# AppRole: enable, a role, its role ID, a secret ID, login (without switching the client's token).
client.sys.enable_auth_method("approle")
approle = client.auth.approle
approle.create_or_update_approle("app", token_policies=["default"], token_ttl="20m", secret_id_num_uses=1)
role = approle.read_role("app")["data"]
out["approle_role"] = {"token_policies": role["token_policies"], "token_ttl": role["token_ttl"], "secret_id_num_uses": role["secret_id_num_uses"]}
role_id = approle.read_role_id("app")["data"]["role_id"]
secret = approle.generate_secret_id("app")["data"]
out["approle_secret_id_fields"] = sorted(k for k in ("secret_id", "secret_id_accessor") if secret.get(k))
login = approle.login(role_id, secret["secret_id"], use_token=False)["auth"]
out["approle_login"] = {"policies": login["policies"], "lease_duration": login["lease_duration"], "metadata": login["metadata"]}
out["approle_login_token_works"] = hvac.Client(url=client.url, token=login["client_token"]).auth.token.lookup_self()["data"]["meta"]
out["approle_secret_id_used_up"] = refused(lambda: approle.login(role_id, secret["secret_id"], use_token=False))

# Audit: a file device, listed.
client.sys.enable_audit_device("file", description="hvac", options={"file_path": os.environ["AUDIT_FILE"]})
devices = client.sys.list_enabled_audit_devices()["data"]
out["audit_devices"] = {k: {"type": v["type"], "description": v["description"], "file_path": v["options"]["file_path"]} for k, v in devices.items()}

# Response wrapping: wrap, look the token up, unwrap, unwrap again.
wrapped = client.write("sys/wrapping/wrap", wrap_ttl="90s", secret="s3")["wrap_info"]
out["wrap_info"] = {"ttl": wrapped["ttl"], "creation_path": wrapped["creation_path"], "has_token": bool(wrapped["token"])}
looked_up = client.adapter.post("/v1/sys/wrapping/lookup", json={"token": wrapped["token"]})["data"]
out["wrap_lookup"] = {"creation_ttl": looked_up["creation_ttl"], "creation_path": looked_up["creation_path"]}
out["unwrapped"] = client.sys.unwrap(wrapped["token"])["data"]
out["unwrap_again"] = refused(lambda: client.sys.unwrap(wrapped["token"]))

# Leases: a KV v1 mount with leased_passthrough issues one for each read.
client.sys.enable_secrets_engine("kv", path="leased", options={"version": "1", "leased_passthrough": "true"})
client.write("leased/app", password="p", ttl="1h")
read = client.read("leased/app")
lease_id = read["lease_id"]
out["lease_read"] = {"lease_id_prefix": lease_id.startswith("leased/app/"), "lease_duration": read["lease_duration"], "renewable": read["renewable"], "data": read["data"]}
lease = client.sys.read_lease(lease_id)["data"]
out["lease_lookup"] = {"id_matches": lease["id"] == lease_id, "renewable": lease["renewable"], "ttl_ok": 0 < lease["ttl"] <= 3600}
out["lease_list"] = client.sys.list_leases("leased/app/")["data"]["keys"] == [lease_id.rsplit("/", 1)[1]]
renewed = client.sys.renew_lease(lease_id, increment=1800)
out["lease_renewed"] = {"id_matches": renewed["lease_id"] == lease_id, "lease_duration": renewed["lease_duration"], "renewable": renewed["renewable"]}
client.sys.revoke_lease(lease_id)
out["lease_revoked_lookup"] = refused(lambda: client.sys.read_lease(lease_id))

print(json.dumps(out))
