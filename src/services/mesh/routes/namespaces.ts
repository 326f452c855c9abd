/**
 * Namespace endpoints, enterprise only (issue 5 scope 6; the reference is Consul
 * Enterprise's `/v1/namespace` API): `PUT /namespace` creates `{Name, Description}`,
 * `GET|PUT|DELETE /namespace/:name`, `GET /namespaces`. Reads need `operator:read`,
 * writes `operator:write` (nothing when ACLs are off). `default` always exists and cannot
 * be deleted. Deleting a namespace deletes every ACL object in it in the same transaction
 * (the reference marks it and deletes them in the background). In a secondary datacenter
 * writes go to the primary, which replicates namespaces (replication.ts).
 *
 * @module
 */
import type { Static } from '@sinclair/typebox';
import { withBody } from '../../../kernel/http/index.js';
import type { Indexed, StateStore } from '../../../kernel/store/index.js';
import { Go } from '../../../kernel/util/go-schema.js';
import { need, type MeshRouteSpec } from '../access.js';
import type { Ctx } from '../deps.js';
import { meshBody } from '../body-decoding.js';
import { meshBadRequest, meshNotFound, type MeshReply } from '../http.js';
import { DEFAULT_NAMESPACE } from '../namespace.js';
import { authMethodKey, nsOf, T, type NamespaceDoc } from '../state.js';

/** The `default` namespace's description (the reference's). */
const DEFAULT_NAMESPACE_DESCRIPTION = 'Builtin Default Namespace';

/** A DNS hostname label, as the reference requires of namespace names. */
const NAME = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** The tables whose objects live in a namespace (emptied when it is deleted). */
const NAMESPACED_TABLES = [T.tokens, T.policies, T.roles, T.bindingRules, T.authMethods] as const;

/** The body of `PUT /namespace`. */
const NamespaceBody = meshBody('Namespace', { Name: Go.string('a DNS hostname label'), Description: Go.string() });

/** The body of `PUT /namespace/:name`: `Name`, when given, must be the URL's (its own text). */
const NamespaceUpdateBody = meshBody('Namespace', { Name: Go.any("empty, or the URL's name"), Description: Go.string() });

type NamespaceInput = Static<typeof NamespaceUpdateBody>;

/** A namespace as the API shows it: `{Name, Description, CreateIndex, ModifyIndex}`. */
function renderNamespace(n: NamespaceDoc & Indexed): Record<string, unknown> {
  return { Name: n.Name, Description: n.Description, CreateIndex: n.CreateIndex, ModifyIndex: n.ModifyIndex };
}

/** Creates the `default` namespace when missing (agent start, enterprise switch on). */
export async function ensureDefaultNamespace(state: StateStore): Promise<void> {
  if (state.get(T.namespaces, DEFAULT_NAMESPACE)) return;
  await state.txn((tx) => {
    if (!tx.get(T.namespaces, DEFAULT_NAMESPACE))
      tx.put<NamespaceDoc>(T.namespaces, DEFAULT_NAMESPACE, { Name: DEFAULT_NAMESPACE, Description: DEFAULT_NAMESPACE_DESCRIPTION });
  });
}

const notFound = (name: string) => meshNotFound(`Namespace "${name}" does not exist`);

/**
 * Writes namespace `name` from `input`: `create` refuses an existing one, an update a
 * missing one. @throws 400 bad name or description, `Namespace "<n>" already exists`; 404.
 */
async function write(ctx: Ctx, name: string, input: NamespaceInput, create: boolean): Promise<MeshReply> {
  if (name === '') throw meshBadRequest('Namespace Name is required');
  if (!NAME.test(name)) throw meshBadRequest(`Invalid Namespace name "${name}": it must be a valid DNS hostname label`);
  const description = input.Description ?? '';
  const { result } = await ctx.deps.state.txn((tx) => {
    const existing = tx.get(T.namespaces, name);
    if (create && existing) throw meshBadRequest(`Namespace "${name}" already exists`);
    if (!create && !existing) throw notFound(name);
    return tx.put<NamespaceDoc>(T.namespaces, name, { Name: name, Description: description });
  });
  return { body: renderNamespace(result) };
}

/**
 * The namespace routes (registered with the enterprise switch only, routes/index.ts): reads
 * need `operator:read`, writes `operator:write` (anyone with ACLs off) and go to the primary.
 */
export const namespaceRoutes: readonly MeshRouteSpec[] = [
  {
    pattern: 'namespace',
    synopsis: 'Create a namespace',
    methods: {
      PUT: withBody(NamespaceBody, {
        bodyKind: 'Namespace',
        access: need('operator', 'write'),
        forward: 'primary',
        handle: async (ctx, body) => write(ctx, body?.Name ?? '', body ?? {}, true),
      }),
    },
  },
  {
    pattern: 'namespace/:name',
    synopsis: 'Read, update or delete a namespace',
    blocking: [T.namespaces],
    methods: {
      GET: {
        access: need('operator', 'read'),
        handle: async (ctx) => {
          const n = ctx.deps.state.get<NamespaceDoc>(T.namespaces, ctx.params.name);
          if (!n) throw notFound(ctx.params.name);
          return { body: renderNamespace(n), index: ctx.deps.state.tableIndex(T.namespaces) };
        },
      },
      PUT: withBody(NamespaceUpdateBody, {
        bodyKind: 'Namespace',
        access: need('operator', 'write'),
        forward: 'primary',
        handle: async (ctx, body) => {
          const input = body ?? {};
          if (input.Name !== undefined && input.Name !== '' && input.Name !== ctx.params.name) {
            throw meshBadRequest('Namespace name in URL and payload do not match');
          }
          return write(ctx, ctx.params.name, input, false);
        },
      }),
      DELETE: {
        access: need('operator', 'write'),
        forward: 'primary',
        handle: async (ctx) => {
          const name = ctx.params.name;
          if (name === DEFAULT_NAMESPACE) throw meshBadRequest('Cannot delete the default namespace');
          await ctx.deps.state.txn((tx) => {
            if (!tx.get(T.namespaces, name)) return;
            for (const table of NAMESPACED_TABLES) {
              for (const d of tx.list<Record<string, unknown> & { Namespace?: string }>(table)) if (nsOf(d) === name) tx.delete(table, idOf(table, d));
            }
            tx.delete(T.namespaces, name);
          });
          return { body: true };
        },
      },
    },
  },
  {
    pattern: 'namespaces',
    synopsis: 'List namespaces',
    blocking: [T.namespaces],
    methods: {
      GET: {
        access: need('operator', 'read'),
        handle: async (ctx) => {
          return { body: ctx.deps.state.list<NamespaceDoc>(T.namespaces).map(renderNamespace), index: ctx.deps.state.tableIndex(T.namespaces) };
        },
      },
    },
  },
];

/** The state ID of a namespaced document of `table`. */
function idOf(table: string, d: Record<string, unknown> & { Namespace?: string }): string {
  if (table === T.tokens) return String(d.AccessorID);
  if (table === T.authMethods) return authMethodKey(nsOf(d), String(d.Name));
  return String(d.ID);
}
