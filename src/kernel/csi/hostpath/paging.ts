/**
 * Paging of `ListVolumes` and `ListSnapshots` (CSI spec: `max_entries`, `starting_token`,
 * `next_token`). Entries are in ID order; a token names the last ID of the previous page,
 * so a page starts after it whatever was created or deleted in between: nothing shows
 * twice and nothing that existed throughout is skipped. A token this plugin did not make
 * is ABORTED, as the spec's "Invalid starting_token" row says.
 *
 * @module
 */
import * as grpc from '@grpc/grpc-js';
import { fail } from './rpc.js';

const PREFIX = 'after:';

/** The token that resumes after `lastId` (opaque to callers). */
function tokenAfter(lastId: string): string {
  return Buffer.from(`${PREFIX}${lastId}`).toString('base64url');
}

/** The ID a token resumes after. @throws {RpcFailure} ABORTED when the token is not one of ours. */
function afterOf(token: string): string {
  const text = Buffer.from(token, 'base64url').toString('utf8');
  if (!text.startsWith(PREFIX) || text.length === PREFIX.length || Buffer.from(text).toString('base64url') !== token)
    throw fail(grpc.status.ABORTED, `starting_token "${token}" is not a token of this plugin`);
  return text.slice(PREFIX.length);
}

/**
 * One page of `items` (sorted by `idOf`): those after the token's ID, at most `max`
 * (0 = all), and the token of the next page (empty on the last).
 * @throws {RpcFailure} ABORTED for a token this plugin did not make.
 */
export function page<T>(items: readonly T[], idOf: (item: T) => string, max: number, startingToken: string): { entries: T[]; nextToken: string } {
  let rest = items;
  if (startingToken) {
    const after = afterOf(startingToken);
    rest = items.filter((i) => idOf(i) > after);
  }
  if (max === 0 || rest.length <= max) return { entries: [...rest], nextToken: '' };
  const entries = rest.slice(0, max);
  return { entries, nextToken: tokenAfter(idOf(entries[entries.length - 1])) };
}
