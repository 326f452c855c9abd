/**
 * `sys/audit` (list), `sys/audit/:path` (enable, disable) and `sys/audit-hash/:path`
 * (the reference's API of the same paths). Root-protected (`sudo`, policy/acl.ts) and
 * served in the root namespace only (sys/root-only.ts), as the reference.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import type { SecretsPath } from '../types.js';
import { optionStrings } from './config.js';

const listPath: SecretsPath = {
  pattern: 'audit',
  synopsis: 'List the enabled audit devices',
  operations: {
    read: {
      summary: 'List enabled audit devices: {"<path>/": {type, description, options, local, path}}, at the top level and in data',
      handle: async (req) => ({ data: req.core.audit.list(), topLevel: true }),
    },
  },
};

const devicePath: SecretsPath = {
  pattern: 'audit/:path+',
  synopsis: 'Enable or disable an audit device',
  params: { path: 'the device\'s path (its name), e.g. "file"' },
  fields: {
    type: Type.String({ description: '"file" or "socket"' }),
    description: Type.String({ description: 'human-friendly description' }),
    local: Type.Boolean({ description: 'not replicated to other clusters (kept for compatibility; HA standbys always use every device)' }),
    options: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'file: file_path (a path, "stdout" or "discard"), mode (octal, default "0600"); socket: address, socket_type (tcp|udp|unix), write_timeout (default "2s"); both: format ("json"), prefix, log_raw, hmac_accessor (default true)',
    }),
  },
  operations: {
    update: {
      summary: 'Enable an audit device (400 naming a bad option, or a file that cannot be opened)',
      required: ['type'],
      handle: async (req) => {
        const d = req.data;
        await req.core.audit.enable(req.core.backend, {
          path: req.params.path,
          type: String(d.type),
          description: typeof d.description === 'string' ? d.description : '',
          local: d.local === true,
          options: optionStrings(d.options),
        });
        return undefined;
      },
    },
    delete: {
      summary: 'Disable an audit device',
      fields: {},
      handle: async (req) => {
        await req.core.audit.disable(req.core.backend, req.params.path);
        return undefined;
      },
    },
  },
};

const hashPath: SecretsPath = {
  pattern: 'audit-hash/:path+',
  synopsis: 'Hash a value as an audit device does, to find it in the log',
  params: { path: "the device's path" },
  fields: { input: Type.String({ description: 'the value to hash' }) },
  operations: {
    update: {
      summary: 'Hash input with the device\'s salt: {"hash": "hmac-sha256:<hex>"}',
      required: ['input'],
      handle: async (req) => ({ data: { hash: req.core.audit.hash(req.params.path, String(req.data.input)) }, topLevel: true }),
    },
  },
};

/** The audit paths of the `sys/` mount; `audit-hash` before `audit/` is irrelevant (different first segment). */
export const auditPaths: readonly SecretsPath[] = [listPath, devicePath, hashPath];
