/** The scope a users or roles screen shows, chosen from the scope tree. */
import { useSearchParams } from 'react-router';
import { scopeLabel, useScopes } from './domain';

/** The scope chosen in the URL (`?scope=`, default global), and its setter. */
export function useChosenScope(): [string, (id: string) => void] {
  const [params, setParams] = useSearchParams();
  return [params.get('scope') || 'global', (id) => setParams({ scope: id })];
}

export function ScopePicker({ value, onChange }: { value: string; onChange: (id: string) => void }) {
  const scopes = useScopes();
  return (
    <div className="field inline">
      <label htmlFor="gw-scope">Scope</label>
      <select id="gw-scope" value={value} onChange={(e) => onChange(e.target.value)}>
        {(scopes.data ?? [{ id: 'global', type: 'global' as const }]).map((s) => (
          <option key={s.id} value={s.id}>
            {scopeLabel(s)}
          </option>
        ))}
      </select>
    </div>
  );
}
