"""Drives the PKI engine with Debian's python3-hvac (0.11) through the header-renaming proxy
at 127.0.0.1:$PROXY_PORT with the root token $SECRETS_TOKEN, each step one of hvac's own
`client.secrets.pki` methods against the mounts `pki/` and `pki_int/` the test made.
Prints one JSON object: what each call returned (the values the test asserts), or for a
refused call [exception class, errors]. Run by test/secrets/reference-pki.test.ts; any
other exception ends the script non-zero."""
import json
import os

import hvac

client = hvac.Client(url="http://127.0.0.1:%s" % os.environ["PROXY_PORT"], token=os.environ["SECRETS_TOKEN"])
pki = client.secrets.pki
out = {}


def refused(call):
    """[class name, errors] of the hvac exception `call` raised; None when it succeeded."""
    try:
        call()
    except hvac.exceptions.VaultError as e:
        return [type(e).__name__, e.errors]
    return None


# A root CA with its key exported, the URLs, a role, a certificate issued under it.
root = pki.generate_root(type="exported", common_name="hvac Root", extra_params={"key_type": "ec", "ttl": "87600h"}, mount_point="pki")["data"]
out["root"] = {k: root.get(k) for k in ("certificate", "issuing_ca", "serial_number", "private_key_type", "issuer_id")}
out["root_private_key"] = root["private_key"]
out["ca_pem"] = pki.read_ca_certificate(mount_point="pki")
out["ca_chain"] = pki.read_ca_certificate_chain(mount_point="pki")
pki.set_urls({"issuing_certificates": ["http://127.0.0.1/v1/pki/ca"], "crl_distribution_points": ["http://127.0.0.1/v1/pki/crl"]}, mount_point="pki")
out["urls"] = pki.read_urls(mount_point="pki")["data"]
pki.create_or_update_role("web", extra_params={"allowed_domains": ["example.test"], "allow_subdomains": True, "key_type": "ec", "max_ttl": "72h"}, mount_point="pki")
role = pki.read_role("web", mount_point="pki")["data"]
out["role"] = {k: role[k] for k in ("allowed_domains", "allow_subdomains", "key_type", "key_bits", "max_ttl", "server_flag", "key_usage")}
out["roles"] = pki.list_roles(mount_point="pki")["data"]["keys"]
issued = pki.generate_certificate("web", "www.example.test", extra_params={"ttl": "1h", "ip_sans": "127.0.0.1"}, mount_point="pki")["data"]
out["issued"] = issued
out["refused_name"] = refused(lambda: pki.generate_certificate("web", "www.evil.test", mount_point="pki"))
out["read_certificate"] = pki.read_certificate(issued["serial_number"], mount_point="pki")["data"]
out["list_certificates"] = pki.list_certificates(mount_point="pki")["data"]["keys"]

# sign/:role with a CSR the test made with openssl.
signed = pki.sign_certificate("web", os.environ["CSR"], "csr.example.test", mount_point="pki")["data"]
out["signed"] = {k: signed.get(k) for k in ("certificate", "serial_number", "private_key")}
verbatim = pki.sign_verbatim(os.environ["CSR"], mount_point="pki")["data"]
out["verbatim_serial"] = verbatim["serial_number"]

# Revocation and the CRL.
out["revoked"] = pki.revoke_certificate(issued["serial_number"], mount_point="pki")["data"]
out["crl_pem"] = pki.read_crl(mount_point="pki")
out["crl_config_default"] = pki.read_crl_configuration(mount_point="pki")["data"]
pki.set_crl_configuration(expiry="48h", mount_point="pki")
out["crl_config"] = pki.read_crl_configuration(mount_point="pki")["data"]
out["rotated"] = pki.rotate_crl(mount_point="pki")["data"]

# The intermediate flow: CSR on pki_int, signed by pki, imported into pki_int.
inter = pki.generate_intermediate("internal", "hvac Intermediate", extra_params={"key_type": "ec"}, mount_point="pki_int")["data"]
signed_inter = pki.sign_intermediate(inter["csr"], "hvac Intermediate", extra_params={"ttl": "8760h"}, mount_point="pki")["data"]
out["signed_intermediate"] = {k: signed_inter[k] for k in ("certificate", "issuing_ca", "ca_chain")}
set_signed = pki.set_signed_intermediate(signed_inter["certificate"], mount_point="pki_int")
out["set_signed"] = set_signed["data"] if isinstance(set_signed, dict) else set_signed.status_code
out["intermediate_ca"] = pki.read_ca_certificate(mount_point="pki_int")

# Tidy, then the role gone and the root deleted.
tidy = pki.tidy(extra_params={"tidy_cert_store": True, "tidy_revoked_certs": True}, mount_point="pki")
out["tidy_status_code"] = tidy.status_code
out["tidy_warnings"] = tidy.json()["warnings"]
pki.delete_role("web", mount_point="pki")
out["role_deleted"] = refused(lambda: pki.read_role("web", mount_point="pki"))
pki.delete_root(mount_point="pki_int")
out["root_deleted_ca"] = pki.read_ca_certificate(mount_point="pki_int")

print(json.dumps(out))
