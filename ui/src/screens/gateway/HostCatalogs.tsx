/**
 * Gateway host catalogs of a chosen project (`?scope=`): list, create (a `static`
 * catalog, or a `plugin` one over a discovery service: PluginCatalog.tsx), delete (which
 * takes its hosts and host sets). A plugin catalog's page shows its sets' current hosts,
 * read again every 2 s. A static catalog's page lists its hosts
 * (`GET /v1/hosts?host_catalog_id=`) and host sets, adds a host (name, address: an IP or
 * DNS name without a port, checked by the server), makes a host set, puts a host into a
 * set (`POST /v1/host-sets/{id}:add-hosts` with the set's version) and deletes hosts and
 * sets.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { api } from '../../api/client';
import { DataTable } from '../../components/DataTable';
import { ErrorNotice, Loading } from '../../components/Notice';
import { attempt, useList, type Host, type HostCatalog, type HostSet } from './domain';
import { NameForm } from './NameForm';
import { PluginCatalogFields, pluginCatalogBody, PluginHosts, PluginSetForm, PluginSets, type PluginCatalogInput } from './PluginCatalog';
import { ScopePicker, useChosenProject } from './ScopePicker';

export function HostCatalogs() {
  const queries = useQueryClient();
  const [projectId, setProjectId] = useChosenProject();
  const catalogs = useList<HostCatalog>(['host-catalogs', projectId], projectId && `host-catalogs?scope_id=${encodeURIComponent(projectId)}`);
  const [error, setError] = useState<unknown>();
  const [type, setType] = useState<'static' | 'plugin'>('static');
  const [plugin, setPlugin] = useState<PluginCatalogInput>({ address: '', datacenter: '', token: '' });
  const refresh = async () => {
    setPlugin({ address: '', datacenter: '', token: '' });
    await queries.invalidateQueries({ queryKey: ['gateway', 'host-catalogs'] });
  };
  const remove = (c: HostCatalog) =>
    attempt(setError, async () => {
      await api('gateway', `/v1/host-catalogs/${encodeURIComponent(c.id)}`, { method: 'DELETE' });
      await refresh();
    });
  return (
    <>
      <h1>Gateway host catalogs</h1>
      <ScopePicker value={projectId} onChange={setProjectId} only="project" />
      {projectId === '' && <p>Host catalogs live in a project scope: create one under Scopes first.</p>}
      <ErrorNotice error={catalogs.error ?? error} />
      {catalogs.isFetching && <Loading />}
      <DataTable
        testId="host-catalogs"
        caption="Host catalogs"
        rows={catalogs.data ?? []}
        rowKey={(c) => c.id}
        columns={[
          ['Name', (c) => <Link to={`/gateway/host-catalogs/${encodeURIComponent(c.id)}`}>{c.name || c.id}</Link>],
          ['ID', (c) => <code>{c.id}</code>],
          ['Type', (c) => c.type],
          ['Description', (c) => c.description ?? ''],
          [
            'Actions',
            (c) => (
              <button type="button" className="danger" onClick={() => void remove(c)} aria-label={`Delete host catalog ${c.name || c.id}`}>
                Delete
              </button>
            ),
          ],
        ]}
      />
      {projectId !== '' && (
        <NameForm
          kind="host-catalogs"
          noun="host catalog"
          scopeId={projectId}
          extra={type === 'plugin' ? pluginCatalogBody(plugin) : { type }}
          onMade={refresh}
        >
          <div className="field">
            <label htmlFor="gw-hc-type">Type</label>
            <select id="gw-hc-type" value={type} onChange={(e) => setType(e.target.value as 'static' | 'plugin')}>
              <option value="static">Static: hosts entered here</option>
              <option value="plugin">Discovery service: a service&apos;s passing instances</option>
            </select>
          </div>
          {type === 'plugin' && <PluginCatalogFields value={plugin} onChange={setPlugin} />}
        </NameForm>
      )}
    </>
  );
}

export function HostCatalogDetail() {
  const { id = '' } = useParams();
  const queries = useQueryClient();
  const catalog = useQuery({
    queryKey: ['gateway', 'host-catalog', id],
    queryFn: () => api<HostCatalog>('gateway', `/v1/host-catalogs/${encodeURIComponent(id)}`),
  });
  // A plugin catalog's hosts change as its discovery service's instances do: read again every 2 s.
  const follow = catalog.data?.type === 'plugin' ? 2000 : undefined;
  const hosts = useList<Host>(['hosts', id], `hosts?host_catalog_id=${encodeURIComponent(id)}`, follow);
  const sets = useList<HostSet>(['host-sets', id], `host-sets?host_catalog_id=${encodeURIComponent(id)}`, follow);
  const [hostName, setHostName] = useState('');
  const [address, setAddress] = useState('');
  const [setName, setSetName] = useState('');
  const [member, setMember] = useState({ set: '', host: '' });
  const [listError, setListError] = useState<unknown>();
  const [hostError, setHostError] = useState<unknown>();
  const [setError, setSetError] = useState<unknown>();
  const [memberError, setMemberError] = useState<unknown>();
  const refresh = () => queries.invalidateQueries({ queryKey: ['gateway'] });

  const addHost = async (e: FormEvent) => {
    e.preventDefault();
    const done = await attempt(setHostError, () =>
      api('gateway', '/v1/hosts', {
        method: 'POST',
        body: { host_catalog_id: id, name: hostName.trim() || undefined, attributes: { address: address.trim() } },
      }),
    );
    if (!done) return;
    setHostName('');
    setAddress('');
    await refresh();
  };
  const addSet = async (e: FormEvent) => {
    e.preventDefault();
    if (
      !(await attempt(setSetError, () => api('gateway', '/v1/host-sets', { method: 'POST', body: { host_catalog_id: id, name: setName.trim() || undefined } })))
    )
      return;
    setSetName('');
    await refresh();
  };
  const addMember = async (e: FormEvent) => {
    e.preventDefault();
    const set = (sets.data ?? []).find((s) => s.id === (member.set || sets.data?.[0]?.id));
    const host = member.host || hosts.data?.[0]?.id;
    if (!set || !host) return;
    const body = { version: set.version, host_ids: [host] };
    if (await attempt(setMemberError, () => api('gateway', `/v1/host-sets/${encodeURIComponent(set.id)}:add-hosts`, { method: 'POST', body }))) await refresh();
  };
  const remove = (kind: 'hosts' | 'host-sets', itemId: string) =>
    attempt(setListError, async () => {
      await api('gateway', `/v1/${kind}/${encodeURIComponent(itemId)}`, { method: 'DELETE' });
      await refresh();
    });

  if (catalog.isPending) return <Loading />;
  if (!catalog.data) return <ErrorNotice error={catalog.error} />;
  const c = catalog.data;
  const hostLabel = (hid: string) => hosts.data?.find((h) => h.id === hid)?.name || hid;
  if (c.type === 'plugin')
    return (
      <>
        <h1>Host catalog {c.name || c.id}</h1>
        <p>
          <code>{c.id}</code> (plugin {c.plugin?.name}: the discovery service at <code>{c.attributes?.address}</code>
          {c.attributes?.datacenter && <>, datacenter {c.attributes.datacenter}</>}; {c.secrets_hmac ? 'with a token' : 'without a token'}) in project{' '}
          <code>{c.scope_id}</code>, version {c.version}.{' '}
          <Link to={`/gateway/host-catalogs?scope=${encodeURIComponent(c.scope_id)}`}>All host catalogs of this project</Link>
        </p>
        <ErrorNotice error={hosts.error ?? sets.error ?? listError} />
        <section aria-labelledby="sets-h">
          <h2 id="sets-h">Host sets</h2>
          <PluginSets sets={sets.data ?? []} hosts={hosts.data ?? []} onDelete={(s) => void remove('host-sets', s.id)} />
          <PluginSetForm catalogId={c.id} onMade={refresh} />
        </section>
        <section aria-labelledby="hosts-h">
          <h2 id="hosts-h">Hosts</h2>
          <PluginHosts hosts={hosts.data ?? []} />
        </section>
      </>
    );
  return (
    <>
      <h1>Host catalog {c.name || c.id}</h1>
      <p>
        <code>{c.id}</code> ({c.type}) in project <code>{c.scope_id}</code>, version {c.version}.{' '}
        <Link to={`/gateway/host-catalogs?scope=${encodeURIComponent(c.scope_id)}`}>All host catalogs of this project</Link>
      </p>
      <ErrorNotice error={hosts.error ?? sets.error ?? listError} />
      <section aria-labelledby="hosts-h">
        <h2 id="hosts-h">Hosts</h2>
        <DataTable
          testId="hosts"
          caption="Hosts"
          rows={hosts.data ?? []}
          rowKey={(h) => h.id}
          columns={[
            ['Name', (h) => h.name ?? ''],
            ['ID', (h) => <code>{h.id}</code>],
            ['Address', (h) => <code>{h.attributes.address}</code>],
            ['Host sets', (h) => (h.host_set_ids ?? []).length],
            [
              'Actions',
              (h) => (
                <button type="button" className="danger" onClick={() => void remove('hosts', h.id)} aria-label={`Delete host ${h.name || h.id}`}>
                  Delete
                </button>
              ),
            ],
          ]}
        />
        <form className="narrow" onSubmit={(e) => void addHost(e)} aria-label="Add host">
          <h3>Add a host</h3>
          <div className="field">
            <label htmlFor="gw-host-name">Host name</label>
            <input id="gw-host-name" value={hostName} onChange={(e) => setHostName(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="gw-host-address">Address</label>
            <input id="gw-host-address" value={address} onChange={(e) => setAddress(e.target.value)} required aria-describedby="gw-host-address-hint" />
            <span id="gw-host-address-hint" className="muted">
              An IP address or DNS name, without a port (the target names the port).
            </span>
          </div>
          <ErrorNotice error={hostError} />
          <button type="submit" className="primary">
            Add host
          </button>
        </form>
      </section>
      <section aria-labelledby="sets-h">
        <h2 id="sets-h">Host sets</h2>
        <DataTable
          testId="host-sets"
          caption="Host sets"
          rows={sets.data ?? []}
          rowKey={(s) => s.id}
          columns={[
            ['Name', (s) => s.name ?? ''],
            ['ID', (s) => <code>{s.id}</code>],
            ['Hosts', (s) => (s.host_ids ?? []).map(hostLabel).join(', ')],
            [
              'Actions',
              (s) => (
                <button type="button" className="danger" onClick={() => void remove('host-sets', s.id)} aria-label={`Delete host set ${s.name || s.id}`}>
                  Delete
                </button>
              ),
            ],
          ]}
        />
        <form className="narrow" onSubmit={(e) => void addSet(e)} aria-label="Create host set">
          <h3>Create a host set</h3>
          <div className="field">
            <label htmlFor="gw-set-name">Host set name</label>
            <input id="gw-set-name" value={setName} onChange={(e) => setSetName(e.target.value)} />
          </div>
          <ErrorNotice error={setError} />
          <button type="submit" className="primary">
            Create host set
          </button>
        </form>
        {(sets.data ?? []).length > 0 && (hosts.data ?? []).length > 0 && (
          <form className="narrow" onSubmit={(e) => void addMember(e)} aria-label="Add host to set">
            <h3>Put a host into a set</h3>
            <div className="field">
              <label htmlFor="gw-member-set">Host set</label>
              <select id="gw-member-set" value={member.set} onChange={(e) => setMember({ ...member, set: e.target.value })}>
                {(sets.data ?? []).map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.name || s.id}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor="gw-member-host">Host</label>
              <select id="gw-member-host" value={member.host} onChange={(e) => setMember({ ...member, host: e.target.value })}>
                {(hosts.data ?? []).map((h) => (
                  <option key={h.id} value={h.id}>
                    {h.name || h.id} ({h.attributes.address})
                  </option>
                ))}
              </select>
            </div>
            <ErrorNotice error={memberError} />
            <button type="submit" className="primary">
              Add host to set
            </button>
          </form>
        )}
      </section>
    </>
  );
}
