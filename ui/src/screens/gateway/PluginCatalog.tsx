/**
 * The parts of the host catalog screens for `plugin` catalogs (plugin `consul`: a Cairn
 * discovery service; issue 26): the create fields (the service's address, an optional
 * datacenter and a token, sent once and never shown again), a catalog's hosts (the
 * passing instances its sync found: address, port, node and service ID, read-only) and
 * host sets (service name, tag, filter, preferred endpoints, the current hosts, the last
 * sync and its error), and the form that makes a set.
 */
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { DataTable } from '../../components/DataTable';
import { ErrorNotice } from '../../components/Notice';
import { attempt, type Host, type HostSet } from './domain';

/** What the create form of a plugin catalog holds. */
export interface PluginCatalogInput {
  address: string;
  datacenter: string;
  token: string;
}

/** The create body's plugin fields from `v` (empty fields left out). */
export function pluginCatalogBody(v: PluginCatalogInput): Record<string, unknown> {
  return {
    type: 'plugin',
    plugin_name: 'consul',
    attributes: { address: v.address.trim(), ...(v.datacenter.trim() ? { datacenter: v.datacenter.trim() } : {}) },
    ...(v.token ? { secrets: { token: v.token } } : {}),
  };
}

/** The create form's fields of a plugin catalog. */
export function PluginCatalogFields({ value, onChange }: { value: PluginCatalogInput; onChange: (v: PluginCatalogInput) => void }) {
  return (
    <>
      <div className="field">
        <label htmlFor="gw-hc-address">Discovery service address</label>
        <input
          id="gw-hc-address"
          value={value.address}
          onChange={(e) => onChange({ ...value, address: e.target.value })}
          placeholder="http://127.0.0.1:8500"
          required
        />
      </div>
      <div className="field">
        <label htmlFor="gw-hc-datacenter">Datacenter</label>
        <input id="gw-hc-datacenter" value={value.datacenter} onChange={(e) => onChange({ ...value, datacenter: e.target.value })} />
      </div>
      <div className="field">
        <label htmlFor="gw-hc-token">Discovery token</label>
        <input
          id="gw-hc-token"
          type="password"
          autoComplete="off"
          value={value.token}
          onChange={(e) => onChange({ ...value, token: e.target.value })}
          aria-describedby="gw-hc-token-hint"
        />
        <span id="gw-hc-token-hint" className="muted">
          Needs <code>service:read</code> on the services the host sets name; kept by the controller and never shown again.
        </span>
      </div>
    </>
  );
}

/** `address:port` of a plugin host. */
const endpoint = (h: Host) => `${h.attributes.address}${h.attributes.port ? `:${h.attributes.port}` : ''}`;

/** A plugin catalog's hosts: read-only, made by its sync. */
export function PluginHosts({ hosts }: { hosts: Host[] }) {
  return (
    <DataTable
      testId="hosts"
      caption="Hosts (passing instances)"
      rows={hosts}
      rowKey={(h) => h.id}
      columns={[
        ['ID', (h) => <code>{h.id}</code>],
        ['Address', (h) => <code>{endpoint(h)}</code>],
        ['Instance', (h) => `${h.attributes.service_id ?? ''} on ${h.attributes.node ?? ''}`],
        ['Host sets', (h) => (h.host_set_ids ?? []).length],
      ]}
    />
  );
}

/** A plugin catalog's host sets with their current hosts and sync state; each deletable through `onDelete`. */
export function PluginSets({ sets, hosts, onDelete }: { sets: HostSet[]; hosts: Host[]; onDelete: (s: HostSet) => void }) {
  const hostEndpoint = (id: string) => {
    const h = hosts.find((x) => x.id === id);
    return h ? endpoint(h) : id;
  };
  return (
    <DataTable
      testId="host-sets"
      caption="Host sets"
      rows={sets}
      rowKey={(s) => s.id}
      columns={[
        ['Name', (s) => s.name ?? ''],
        ['ID', (s) => <code>{s.id}</code>],
        [
          'Service',
          (s) => (
            <>
              <code>{s.attributes?.service_name}</code>
              {s.attributes?.tag && <> tag {s.attributes.tag}</>}
              {s.attributes?.filter && <> filter {s.attributes.filter}</>}
            </>
          ),
        ],
        ['Current hosts', (s) => ((s.host_ids ?? []).length === 0 ? <span className="muted">none</span> : (s.host_ids ?? []).map(hostEndpoint).join(', '))],
        [
          'Sync',
          (s) =>
            s.sync_error ? (
              <span>
                <strong>Failing</strong> (last hosts kept): {s.sync_error}
              </span>
            ) : s.last_sync_time ? (
              `Synced ${new Date(s.last_sync_time).toLocaleString()}`
            ) : (
              'Waiting for the first sync'
            ),
        ],
        [
          'Actions',
          (s) => (
            <button type="button" className="danger" onClick={() => onDelete(s)} aria-label={`Delete host set ${s.name || s.id}`}>
              Delete
            </button>
          ),
        ],
      ]}
    />
  );
}

/** The form that makes a plugin host set in `catalogId`: a service name, an optional tag and filter, preferred endpoints one per line. */
export function PluginSetForm({ catalogId, onMade }: { catalogId: string; onMade: () => Promise<void> }) {
  const empty = { name: '', service: '', tag: '', filter: '', preferred: '' };
  const [v, setV] = useState(empty);
  const [error, setError] = useState<unknown>();
  const save = async (e: FormEvent) => {
    e.preventDefault();
    const preferred = v.preferred
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '');
    const body = {
      host_catalog_id: catalogId,
      name: v.name.trim() || undefined,
      attributes: { service_name: v.service.trim(), tag: v.tag.trim() || undefined, filter: v.filter.trim() || undefined },
      preferred_endpoints: preferred.length > 0 ? preferred : undefined,
    };
    if (!(await attempt(setError, () => api('gateway', '/v1/host-sets', { method: 'POST', body })))) return;
    setV(empty);
    await onMade();
  };
  const field = (key: keyof typeof empty, label: string, hint?: string) => (
    <div className="field">
      <label htmlFor={`gw-set-${key}`}>{label}</label>
      {key === 'preferred' ? (
        <textarea
          id={`gw-set-${key}`}
          rows={2}
          value={v[key]}
          onChange={(e) => setV({ ...v, [key]: e.target.value })}
          aria-describedby={`gw-set-${key}-hint`}
        />
      ) : (
        <input
          id={`gw-set-${key}`}
          value={v[key]}
          onChange={(e) => setV({ ...v, [key]: e.target.value })}
          required={key === 'service'}
          aria-describedby={hint ? `gw-set-${key}-hint` : undefined}
        />
      )}
      {hint && (
        <span id={`gw-set-${key}-hint`} className="muted">
          {hint}
        </span>
      )}
    </div>
  );
  return (
    <form className="narrow" onSubmit={(e) => void save(e)} aria-label="Create host set">
      <h3>Create a host set</h3>
      {field('name', 'Host set name')}
      {field('service', 'Service name', "The discovery service's service whose passing instances are the hosts.")}
      {field('tag', 'Tag')}
      {field('filter', 'Filter', 'A filter expression over each instance, e.g. Service.Meta.zone == "a".')}
      {field('preferred', 'Preferred endpoints', 'One per line: cidr:10.0.0.0/8 or dns:*.internal, in order of preference.')}
      <ErrorNotice error={error} />
      <button type="submit" className="primary">
        Create host set
      </button>
    </form>
  );
}
