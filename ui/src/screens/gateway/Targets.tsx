/**
 * Gateway `tcp` targets of a chosen project (`?scope=`): list, create (name, default
 * port, description), delete. A target's page shows its settings and host sources,
 * attaches a host set of the project's catalogs (`POST /v1/targets/{id}:add-host-sources`
 * with the target's version) and removes one (`:remove-host-sources`); the server's
 * refusal (e.g. a target with a direct address) is shown under the form.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { api } from '../../api/client';
import { DataTable } from '../../components/DataTable';
import { ErrorNotice, Loading } from '../../components/Notice';
import { attempt, useList, type HostCatalog, type HostSet, type Item } from './domain';
import { ScopePicker, useChosenProject } from './ScopePicker';

interface Target extends Item {
  type: 'tcp';
  attributes: { default_port: number; default_client_port?: number };
  session_max_seconds: number;
  session_connection_limit: number;
  egress_worker_filter?: string;
  address?: string;
  host_sources?: Array<{ id: string; host_catalog_id: string }>;
  brokered_credential_source_ids?: string[];
  authorized_actions?: string[];
}

export function Targets() {
  const queries = useQueryClient();
  const [projectId, setProjectId] = useChosenProject();
  const targets = useList<Target>(['targets', projectId], projectId && `targets?scope_id=${encodeURIComponent(projectId)}`);
  const [name, setName] = useState('');
  const [port, setPort] = useState('');
  const [description, setDescription] = useState('');
  const [error, setError] = useState<unknown>();
  const [createError, setCreateError] = useState<unknown>();
  const refresh = () => queries.invalidateQueries({ queryKey: ['gateway', 'targets'] });
  const remove = (t: Target) =>
    attempt(setError, async () => {
      await api('gateway', `/v1/targets/${encodeURIComponent(t.id)}`, { method: 'DELETE' });
      await refresh();
    });
  const create = async (e: FormEvent) => {
    e.preventDefault();
    const body = {
      scope_id: projectId,
      type: 'tcp',
      name: name.trim(),
      description: description.trim() || undefined,
      attributes: { default_port: Number(port) },
    };
    if (!(await attempt(setCreateError, () => api('gateway', '/v1/targets', { method: 'POST', body })))) return;
    setName('');
    setPort('');
    setDescription('');
    await refresh();
  };
  return (
    <>
      <h1>Gateway targets</h1>
      <ScopePicker value={projectId} onChange={setProjectId} only="project" />
      {projectId === '' && <p>Targets live in a project scope: create one under Scopes first.</p>}
      <ErrorNotice error={targets.error ?? error} />
      {targets.isFetching && <Loading />}
      <DataTable
        testId="targets"
        caption="Targets"
        rows={targets.data ?? []}
        rowKey={(t) => t.id}
        columns={[
          ['Name', (t) => <Link to={`/gateway/targets/${encodeURIComponent(t.id)}`}>{t.name || t.id}</Link>],
          ['ID', (t) => <code>{t.id}</code>],
          ['Default port', (t) => t.attributes.default_port],
          ['Host sources', (t) => (t.host_sources ?? []).length],
          ['Description', (t) => t.description ?? ''],
          [
            'Actions',
            (t) => (
              <button type="button" className="danger" onClick={() => void remove(t)} aria-label={`Delete target ${t.name || t.id}`}>
                Delete
              </button>
            ),
          ],
        ]}
      />
      {projectId !== '' && (
        <form className="narrow" onSubmit={(e) => void create(e)} aria-label="Create target">
          <h2>Create target</h2>
          <div className="field">
            <label htmlFor="gw-target-name">Name</label>
            <input id="gw-target-name" value={name} onChange={(e) => setName(e.target.value)} required />
          </div>
          <div className="field">
            <label htmlFor="gw-target-port">Default port</label>
            <input id="gw-target-port" type="number" min={1} max={65535} value={port} onChange={(e) => setPort(e.target.value)} required />
          </div>
          <div className="field">
            <label htmlFor="gw-target-description">Description</label>
            <input id="gw-target-description" value={description} onChange={(e) => setDescription(e.target.value)} />
          </div>
          <ErrorNotice error={createError} />
          <div className="actions">
            <button type="submit" className="primary">
              Create target
            </button>
          </div>
        </form>
      )}
    </>
  );
}

/** Every host set of the catalogs of `projectId`, with its catalog's name. */
function useProjectHostSets(projectId: string) {
  return useQuery({
    queryKey: ['gateway', 'project-host-sets', projectId],
    enabled: projectId !== '',
    queryFn: async () => {
      const cats = (await api<{ items?: HostCatalog[] }>('gateway', `/v1/host-catalogs?scope_id=${encodeURIComponent(projectId)}`)).items ?? [];
      const sets = await Promise.all(
        cats.map(async (c) =>
          ((await api<{ items?: HostSet[] }>('gateway', `/v1/host-sets?host_catalog_id=${encodeURIComponent(c.id)}`)).items ?? []).map((s) => ({
            ...s,
            catalog: c.name || c.id,
          })),
        ),
      );
      return sets.flat();
    },
  });
}

export function TargetDetail() {
  const { id = '' } = useParams();
  const queries = useQueryClient();
  const target = useQuery({ queryKey: ['gateway', 'target', id], queryFn: () => api<Target>('gateway', `/v1/targets/${encodeURIComponent(id)}`) });
  const sets = useProjectHostSets(target.data?.scope_id ?? '');
  const [chosen, setChosen] = useState('');
  const [error, setError] = useState<unknown>();
  const change = (how: 'add' | 'remove', setId: string) =>
    attempt(setError, async () => {
      await api('gateway', `/v1/targets/${encodeURIComponent(id)}:${how}-host-sources`, {
        method: 'POST',
        body: { version: target.data!.version, host_source_ids: [setId] },
      });
      await queries.invalidateQueries({ queryKey: ['gateway'] });
    });
  const attach = async (e: FormEvent) => {
    e.preventDefault();
    const setId = chosen || sets.data?.[0]?.id;
    if (setId) await change('add', setId);
  };

  if (target.isPending) return <Loading />;
  if (!target.data) return <ErrorNotice error={target.error} />;
  const t = target.data;
  const setLabel = (sid: string) => {
    const s = sets.data?.find((x) => x.id === sid);
    return s ? `${s.name || s.id} (catalog ${s.catalog})` : sid;
  };
  return (
    <>
      <h1>Target {t.name || t.id}</h1>
      <p>
        <code>{t.id}</code> ({t.type}) in project <code>{t.scope_id}</code>, version {t.version}.{' '}
        <Link to={`/gateway/targets?scope=${encodeURIComponent(t.scope_id)}`}>All targets of this project</Link>
      </p>
      <dl data-testid="target-settings">
        <dt>Default port</dt>
        <dd>{t.attributes.default_port}</dd>
        {t.attributes.default_client_port !== undefined && (
          <>
            <dt>Default client port</dt>
            <dd>{t.attributes.default_client_port}</dd>
          </>
        )}
        <dt>Longest session</dt>
        <dd>{t.session_max_seconds} s</dd>
        <dt>Connections per session</dt>
        <dd>{t.session_connection_limit === -1 ? 'unlimited' : t.session_connection_limit}</dd>
        {t.address && (
          <>
            <dt>Address</dt>
            <dd>
              <code>{t.address}</code>
            </dd>
          </>
        )}
        {t.egress_worker_filter && (
          <>
            <dt>Egress worker filter</dt>
            <dd>
              <code>{t.egress_worker_filter}</code>
            </dd>
          </>
        )}
        <dt>Brokered credential sources</dt>
        <dd>{(t.brokered_credential_source_ids ?? []).join(', ') || 'none'}</dd>
      </dl>
      <section aria-labelledby="sources-h">
        <h2 id="sources-h">Host sources</h2>
        <DataTable
          testId="host-sources"
          caption="Host sources"
          rows={t.host_sources ?? []}
          rowKey={(s) => s.id}
          columns={[
            ['Host set', (s) => setLabel(s.id)],
            ['ID', (s) => <code>{s.id}</code>],
            ['Host catalog', (s) => <Link to={`/gateway/host-catalogs/${encodeURIComponent(s.host_catalog_id)}`}>{s.host_catalog_id}</Link>],
            [
              'Actions',
              (s) => (
                <button type="button" className="danger" onClick={() => void change('remove', s.id)} aria-label={`Remove host source ${s.id}`}>
                  Remove
                </button>
              ),
            ],
          ]}
        />
        {sets.data && sets.data.length === 0 && <p>No host sets in this project&apos;s host catalogs yet.</p>}
        <ErrorNotice error={sets.error ?? error} />
        {(sets.data ?? []).length > 0 && (
          <form className="narrow" onSubmit={(e) => void attach(e)} aria-label="Attach host source">
            <h3>Attach a host set</h3>
            <div className="field">
              <label htmlFor="gw-host-source">Host set</label>
              <select id="gw-host-source" value={chosen} onChange={(e) => setChosen(e.target.value)}>
                {(sets.data ?? []).map((s) => (
                  <option key={s.id} value={s.id}>
                    {setLabel(s.id)}
                  </option>
                ))}
              </select>
            </div>
            <button type="submit" className="primary">
              Attach host source
            </button>
          </form>
        )}
      </section>
    </>
  );
}
