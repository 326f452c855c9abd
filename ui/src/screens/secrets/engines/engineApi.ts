/**
 * Calls the engine screens share: a mount's list (`LIST /v1/<mount>/<sub>`, none = the
 * API's 404 = an empty list), a call relative to the mount, and an action runner that
 * shows the service's error or a notice and reloads the screen's queries.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, ApiError, type CallOptions } from '../../../api/client';
import { encodePath } from '../kvPaths';

/** `/v1/<mount>/<path>` of the secrets service (mount without its trailing `/`). */
const enginePath = (mount: string, path: string) => `/v1/${encodeURIComponent(mount)}/${encodePath(path)}`;

/** A call to `path` of the engine at `mount`; its reply's `data`. @throws ApiError as {@link api}. */
export async function engineCall<T = Record<string, unknown>>(mount: string, path: string, o: CallOptions = {}): Promise<T> {
  return ((await api<{ data?: T }>('secrets', enginePath(mount, path), o)) ?? {}).data as T;
}

/** The keys `LIST <mount>/<sub>` answers; none (404) is an empty list. */
async function listKeys(mount: string, sub: string): Promise<string[]> {
  try {
    return (await api<{ data: { keys?: string[] } }>('secrets', `${enginePath(mount, sub)}?list=true`)).data.keys ?? [];
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return [];
    throw err;
  }
}

/** The keys under `<mount>/<sub>`, cached per screen and reloaded after each action. */
export function useKeys(mount: string, sub: string) {
  return useQuery({ queryKey: ['secrets', 'engine', mount, sub], queryFn: () => listKeys(mount, sub) });
}

/** The result of an action: what went wrong or what was done, and the runner. */
export function useAction() {
  const queries = useQueryClient();
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState<string>();
  /** Runs `step` (its string is the notice); then the engine's lists reload. */
  const run = async (step: () => Promise<string | void>) => {
    setError(undefined);
    setNotice(undefined);
    try {
      const said = await step();
      if (said) setNotice(said);
    } catch (err) {
      setError(err);
    }
    await queries.invalidateQueries({ queryKey: ['secrets', 'engine'] });
  };
  return { error, notice, run };
}

/** A comma-separated field as a list (blanks dropped). */
export const commaList = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
