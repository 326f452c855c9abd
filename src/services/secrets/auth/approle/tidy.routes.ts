/**
 * `tidy/secret-id` of the AppRole method (the reference's "Tidy tokens"): deletes the
 * mount's expired secret IDs and index entries left without their other half. The
 * reference starts it in the background and answers 202 with a warning; Cairn answers the
 * same, but only once the tidy has finished (docs/compatibility.md), so a client that
 * reads right after sees the result.
 *
 * @module
 */
import type { SecretsPath } from '../../types.js';
import { secretIdsOf } from './secret-ids.js';

/** The warning of the reference's tidy reply, with the product's name left out. */
const TIDY_STARTED = 'Tidy operation successfully started. Any information from the operation will be printed to the server logs.';

const tidyPath: SecretsPath = {
  pattern: 'tidy/secret-id',
  synopsis: 'Delete expired secret IDs and dangling secret ID index entries',
  description:
    'Expired secret IDs are also deleted whenever a login, lookup or listing comes across them; tidy clears the ones nothing touches. Answers 202 with a warning.',
  operations: {
    update: {
      summary: 'Tidy secret IDs',
      handle: async (req) => {
        await secretIdsOf(req).tidy(req.now);
        return { data: null, warnings: [TIDY_STARTED], status: 202 };
      },
    },
  },
};

/** The tidy path of the AppRole method. */
export const tidyPaths: readonly SecretsPath[] = [tidyPath];
