"""Drives the database secrets engine with Debian's python3-hvac (0.11) through the
header-renaming proxy at 127.0.0.1:$PROXY_PORT with the root token $SECRETS_TOKEN, against
the PostgreSQL server at 127.0.0.1:$PG_PORT (superuser postgres, password $PG_PASSWORD),
each call hvac's own `client.secrets.database` method (mount_point "database"). Prints one
JSON object: what each call returned (the values the test asserts), or for a refused call
[exception class, errors]. Run by test/secrets/reference-database.test.ts; any other
exception ends the script non-zero."""
import json
import os

import hvac

client = hvac.Client(url="http://127.0.0.1:%s" % os.environ["PROXY_PORT"], token=os.environ["SECRETS_TOKEN"])
db = client.secrets.database
out = {}
MOUNT = "database"


def refused(call):
    """[class name, errors] of the hvac exception `call` raised; None when it succeeded."""
    try:
        call()
    except hvac.exceptions.VaultError as e:
        return [type(e).__name__, e.errors]
    return None


url = "postgresql://{{username}}:{{password}}@127.0.0.1:%s/postgres" % os.environ["PG_PORT"]
db.configure(
    name="pg",
    plugin_name="postgresql-database-plugin",
    verify_connection=True,
    allowed_roles=["readonly", "static"],
    mount_point=MOUNT,
    connection_url=url,
    username="hvacroot",
    password=os.environ["ROOT_PASSWORD"],
)
conn = db.read_connection(name="pg", mount_point=MOUNT)["data"]
out["read_connection"] = {
    "plugin_name": conn["plugin_name"],
    "allowed_roles": conn["allowed_roles"],
    "connection_url": conn["connection_details"]["connection_url"],
    "username": conn["connection_details"]["username"],
    "has_password": "password" in conn["connection_details"],
}
out["list_connections"] = db.list_connections(mount_point=MOUNT)["data"]["keys"]
out["configure_refused"] = refused(lambda: db.configure(name="my", plugin_name="mysql-database-plugin", mount_point=MOUNT, connection_url="x"))

db.create_role(
    name="readonly",
    db_name="pg",
    creation_statements=["CREATE ROLE \"{{name}}\" WITH LOGIN PASSWORD '{{password}}' VALID UNTIL '{{expiration}}';"],
    default_ttl=3600,
    max_ttl=7200,
    mount_point=MOUNT,
)
role = db.read_role(name="readonly", mount_point=MOUNT)["data"]
out["read_role"] = {k: role[k] for k in ("db_name", "creation_statements", "default_ttl", "max_ttl", "revocation_statements")}
out["list_roles"] = db.list_roles(mount_point=MOUNT)["data"]["keys"]
creds = db.generate_credentials(name="readonly", mount_point=MOUNT)
out["generate_credentials"] = {
    "lease_id": creds["lease_id"],
    "lease_duration": creds["lease_duration"],
    "renewable": creds["renewable"],
    "username": creds["data"]["username"],
    "password": creds["data"]["password"],
}
out["generate_refused"] = refused(lambda: db.generate_credentials(name="nope", mount_point=MOUNT))

db.create_static_role(name="static", db_name="pg", username="hvac_static", rotation_statements=[], rotation_period=3600, mount_point=MOUNT)
first = db.get_static_credentials(name="static", mount_point=MOUNT)["data"]
out["get_static_credentials"] = {k: first[k] for k in ("username", "password", "rotation_period", "ttl", "last_vault_rotation")}
out["list_static_roles"] = db.list_static_roles(mount_point=MOUNT)["data"]["keys"]
# hvac 0.11 has no rotate_static_role_credentials: its generic write posts to rotate-role.
client.write("%s/rotate-role/static" % MOUNT)
out["rotated_static_password"] = db.get_static_credentials(name="static", mount_point=MOUNT)["data"]["password"]

db.rotate_root_credentials(name="pg", mount_point=MOUNT)
db.reset_connection(name="pg", mount_point=MOUNT)
out["after_root_rotation"] = db.generate_credentials(name="readonly", mount_point=MOUNT)["data"]["username"]

db.delete_static_role(name="static", mount_point=MOUNT)
db.delete_role(name="readonly", mount_point=MOUNT)
out["read_deleted_role"] = refused(lambda: db.read_role(name="readonly", mount_point=MOUNT))
db.delete_connection(name="pg", mount_point=MOUNT)
out["list_after_delete"] = refused(lambda: db.list_connections(mount_point=MOUNT))

print(json.dumps(out))
