/** The scope a users, roles, host catalogs or targets screen shows, chosen from the scope tree. */
import { useSearchParams } from 'react-router';
import { scopeLabel, useScopes, type Scope } from './domain';

/** The scope chosen in the URL (`?scope=`, default global), and its setter. */
export function useChosenScope(): [string, (id: string) => void] {
  const [params, setParams] = useSearchParams();
  return [params.get('scope') || 'global', (id) => setParams({ scope: id })];
}

/**
 * The project chosen in the URL (`?scope=`), else the first project of the tree ('' while
 * the tree loads or when there is none), and its setter: for project-only collections.
 */
export function useChosenProject(): [string, (id: string) => void] {
  const [chosen, setChosen] = useChosenScope();
  const projects = (useScopes().data ?? []).filter((s) => s.type === 'project');
  return [projects.some((p) => p.id === chosen) ? chosen : (projects[0]?.id ?? ''), setChosen];
}

/** `only`: offer scopes of this type alone (projects for host catalogs and targets). */
export function ScopePicker({ value, onChange, only }: { value: string; onChange: (id: string) => void; only?: Scope['type'] }) {
  const scopes = useScopes();
  const offered = (scopes.data ?? [{ id: 'global', type: 'global' as const }]).filter((s) => !only || s.type === only);
  return (
    <div className="field inline">
      <label htmlFor="gw-scope">{only === 'project' ? 'Project' : 'Scope'}</label>
      {/* Disabled until the tree is loaded: a choice made while only `global` is offered would be lost when the options arrive. */}
      <select id="gw-scope" value={value} disabled={!scopes.data} onChange={(e) => onChange(e.target.value)}>
        {offered.map((s) => (
          <option key={s.id} value={s.id}>
            {scopeLabel(s)}
          </option>
        ))}
      </select>
    </div>
  );
}
