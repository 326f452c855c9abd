/**
 * Loads Cairn's CSI v1 protocol file (`csi.proto`, package `csi.v1`) with proto-loader,
 * once, for the client (client.ts) and the hostpath plugin (hostpath/).
 *
 * `tsc` does not copy `.proto` files to `dist/`, so the file is looked up beside this
 * module first (tsx runs `src/`) and then at `src/kernel/csi/` from `dist/kernel/csi/`,
 * the same way the gateway finds `cluster.proto` (services/gateway/cluster.ts).
 *
 * Decoding options: field names as in the proto (`volume_id`), int64 as JS numbers, enums
 * as their names, absent scalars as zero values, absent messages as `null`, and a virtual
 * property naming the member set of each oneof (`access_type: 'mount'`).
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

const CANDIDATES = ['./csi.proto', '../../../src/kernel/csi/csi.proto'].map((p) => fileURLToPath(new URL(p, import.meta.url)));

/** The generated constructors of the three CSI services (`service` on each is the server definition). */
export interface CsiServices {
  readonly Identity: grpc.ServiceClientConstructor;
  readonly Controller: grpc.ServiceClientConstructor;
  readonly Node: grpc.ServiceClientConstructor;
}

let loaded: CsiServices | undefined;

/**
 * The path of `csi.proto` as found at run time.
 * @throws {Error} naming the paths tried when the file is not found.
 */
function csiProtoPath(): string {
  const file = CANDIDATES.find((p) => existsSync(p));
  if (!file) throw new Error(`csi: csi.proto not found (looked in ${CANDIDATES.join(', ')})`);
  return file;
}

/**
 * The `csi.v1` Identity, Controller and Node services. Loaded once.
 * @throws {Error} naming the paths tried when the proto file is not found.
 */
export function csiServices(): CsiServices {
  if (loaded) return loaded;
  const def = protoLoader.loadSync(csiProtoPath(), { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true });
  const pkg = grpc.loadPackageDefinition(def) as unknown as { csi: { v1: CsiServices } };
  const { Identity, Controller, Node } = pkg.csi.v1;
  loaded = { Identity, Controller, Node };
  return loaded;
}
