/** One KV v2 secret: its data (hidden until revealed), editing, versions and their diff, its metadata (editable). */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { ErrorNotice, Loading } from '../../components/Notice';
import { Breadcrumbs } from './Breadcrumbs';
import { explainCas, readMeta, readVersion, writeSecret, type SecretData } from './kvApi';
import { KvDiff } from './KvDiff';
import { KvEditor } from './KvEditor';
import { KvMetadata } from './KvMetadata';
import { KvVersions } from './KvVersions';
import { SecretValue } from './SecretValue';
import { SecretsNav } from './SecretsNav';

export function KvSecret() {
  const { mount = '', '*': path = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const [editing, setEditing] = useState(false);
  const [saveError, setSaveError] = useState<unknown>();
  const queries = useQueryClient();
  const meta = useQuery({ queryKey: ['secrets', 'kv-meta', mount, path], queryFn: () => readMeta(mount, path) });
  const version = Number(params.get('version')) || meta.data?.current_version || 0;
  const data = useQuery({
    queryKey: ['secrets', 'kv-data', mount, path, version],
    queryFn: () => readVersion(mount, path, version),
    enabled: version > 0,
  });
  const reload = () => queries.invalidateQueries({ queryKey: ['secrets'] });

  const save = async (d: SecretData) => {
    setSaveError(undefined);
    try {
      // cas = the version being edited: a newer one saved meanwhile is a conflict, not lost.
      await writeSecret(mount, path, d, meta.data!.current_version);
      setEditing(false);
      setParams({});
      await reload();
    } catch (err) {
      setSaveError(err);
    }
  };

  const versionState = meta.data?.versions[String(version)];
  return (
    <>
      <SecretsNav />
      <Breadcrumbs mount={mount} path={path} />
      {meta.isPending && <Loading />}
      <ErrorNotice error={meta.error ?? data.error} />
      {meta.data && (
        <>
          <section aria-labelledby="data-h">
            <div className="toolbar">
              <h2 id="data-h">
                Version {version}
                {version === meta.data.current_version ? ' (current)' : ''}
              </h2>
              {!editing && (
                <button type="button" className="primary" onClick={() => setEditing(true)}>
                  Create new version
                </button>
              )}
            </div>
            {versionState?.destroyed && <p>This version is destroyed: its data is gone for good.</p>}
            {!versionState?.destroyed && versionState?.deletion_time && <p>This version is deleted; undelete it to read it.</p>}
            {editing && data.data !== undefined ? (
              <>
                <KvEditor initial={data.data ?? {}} submitLabel="Save" onSave={(d) => void save(d)} onCancel={() => setEditing(false)} />
                {saveError !== undefined && (
                  <p role="alert" className="error">
                    {explainCas(saveError) ?? (saveError as Error).message}
                  </p>
                )}
              </>
            ) : (
              data.data && (
                <table className="buttons-row">
                  <caption className="sr-only">Keys and values of version {version}</caption>
                  <thead>
                    <tr>
                      <th scope="col">Key</th>
                      <th scope="col">Value</th>
                    </tr>
                  </thead>
                  <tbody>
                    {Object.entries(data.data).map(([k, v]) => (
                      <tr key={k}>
                        <td>{k}</td>
                        <td>
                          <SecretValue name={k} value={v} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )
            )}
          </section>
          <KvVersions mount={mount} path={path} meta={meta.data} shown={version} onChanged={reload} />
          <KvDiff mount={mount} path={path} meta={meta.data} />
          <KvMetadata mount={mount} path={path} meta={meta.data} onChanged={reload} />
        </>
      )}
    </>
  );
}
