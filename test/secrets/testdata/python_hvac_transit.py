"""Drives the transit engine with Debian's python3-hvac (0.11) through the header-renaming
proxy at 127.0.0.1:$PROXY_PORT with the root token $SECRETS_TOKEN; the engine is mounted at
transit/ by the test. Every call is hvac's own method (client.secrets.transit.*). Prints
one JSON object: what each call returned (the values the test asserts), or for a refused
call [exception class, errors]. Run by test/secrets/reference-transit.test.ts; any other
exception ends the script non-zero."""
import base64
import json
import os

import hvac

client = hvac.Client(url="http://127.0.0.1:%s" % os.environ["PROXY_PORT"], token=os.environ["SECRETS_TOKEN"])
transit = client.secrets.transit
out = {}


def b64(text):
    return base64.b64encode(text.encode()).decode()


def unb64(value):
    return base64.b64decode(value).decode()


def refused(call):
    """[class name, errors] of the hvac exception `call` raised; None when it succeeded."""
    try:
        call()
    except hvac.exceptions.VaultError as e:
        return [type(e).__name__, e.errors]
    return None


M = "transit"

transit.create_key(name="app", mount_point=M)
key = transit.read_key(name="app", mount_point=M)["data"]
out["read_key"] = {"type": key["type"], "latest_version": key["latest_version"], "versions": sorted(key["keys"])}
out["list_keys"] = transit.list_keys(mount_point=M)["data"]["keys"]

v1 = transit.encrypt_data(name="app", plaintext=b64("hello hvac"), mount_point=M)["data"]["ciphertext"]
out["ciphertext_prefix"] = v1.split(":")[0] + ":" + v1.split(":")[1]
out["decrypted"] = unb64(transit.decrypt_data(name="app", ciphertext=v1, mount_point=M)["data"]["plaintext"])

transit.rotate_key(name="app", mount_point=M)
out["rotated_latest"] = transit.read_key(name="app", mount_point=M)["data"]["latest_version"]
rewrapped = transit.rewrap_data(name="app", ciphertext=v1, mount_point=M)["data"]["ciphertext"]
out["rewrapped_prefix"] = rewrapped.split(":")[1]
out["rewrapped_decrypted"] = unb64(transit.decrypt_data(name="app", ciphertext=rewrapped, mount_point=M)["data"]["plaintext"])

transit.update_key_configuration(name="app", min_decryption_version=2, mount_point=M)
out["too_old"] = refused(lambda: transit.decrypt_data(name="app", ciphertext=v1, mount_point=M))

batch = transit.encrypt_data(name="app", plaintext="", batch_input=[{"plaintext": b64("a")}, {"plaintext": b64("b")}], mount_point=M)
out["batch_count"] = len(batch["data"]["batch_results"])

transit.create_key(name="signer", key_type="ecdsa-p256", exportable=True, allow_plaintext_backup=True, mount_point=M)
sig = transit.sign_data(name="signer", hash_input=b64("document"), hash_algorithm="sha2-256", mount_point=M)["data"]["signature"]
out["signature_prefix"] = sig.split(":")[1]
out["verified"] = transit.verify_signed_data(name="signer", hash_input=b64("document"), signature=sig, mount_point=M)["data"]["valid"]
out["verified_other"] = transit.verify_signed_data(name="signer", hash_input=b64("forged"), signature=sig, mount_point=M)["data"]["valid"]
jws = transit.sign_data(name="signer", hash_input=b64("document"), marshaling_algorithm="jws", mount_point=M)["data"]["signature"]
out["jws_verified"] = transit.verify_signed_data(
    name="signer", hash_input=b64("document"), signature=jws, marshaling_algorithm="jws", mount_point=M
)["data"]["valid"]

mac = transit.generate_hmac(name="app", hash_input=b64("msg"), algorithm="sha2-256", mount_point=M)["data"]["hmac"]
out["hmac_prefix"] = mac.split(":")[1]
out["hmac_verified"] = transit.verify_signed_data(name="app", hash_input=b64("msg"), hmac=mac, mount_point=M)["data"]["valid"]
out["hash"] = transit.hash_data(hash_input=b64("abc"), algorithm="sha2-256", output_format="hex", mount_point=M)["data"]["sum"]
out["random_len"] = len(base64.b64decode(transit.generate_random_bytes(n_bytes=24, mount_point=M)["data"]["random_bytes"]))
datakey = transit.generate_data_key(name="app", key_type="plaintext", bits=256, mount_point=M)["data"]
out["datakey_len"] = len(base64.b64decode(datakey["plaintext"]))

out["export_refused"] = refused(lambda: transit.export_key(name="app", key_type="encryption-key", mount_point=M))
exported = transit.export_key(name="signer", key_type="signing-key", version="latest", mount_point=M)["data"]["keys"]
out["exported_pem"] = exported["1"].split("\n")[0]

backup = transit.backup_key(name="signer", mount_point=M)["data"]["backup"]
transit.update_key_configuration(name="signer", deletion_allowed=True, mount_point=M)
transit.delete_key(name="signer", mount_point=M)
out["deleted"] = refused(lambda: transit.read_key(name="signer", mount_point=M))
transit.restore_key(backup=backup, mount_point=M)
out["restored_verifies"] = transit.verify_signed_data(name="signer", hash_input=b64("document"), signature=sig, mount_point=M)["data"]["valid"]

out["delete_refused"] = refused(lambda: transit.delete_key(name="app", mount_point=M))
transit.update_key_configuration(name="app", min_encryption_version=2, mount_point=M)
transit.trim_key(name="app", min_version=2, mount_point=M)
out["trimmed_versions"] = sorted(transit.read_key(name="app", mount_point=M)["data"]["keys"])

print(json.dumps(out))
