/**
 * `cairn dev`: starts every service in this process on the embedded store, prints how to
 * reach it, and runs until SIGINT/SIGTERM (or `io.shutdown` aborts). The only client-side
 * command that starts services in-process (DESIGN.md "Rules of the house").
 *
 * @module
 */
import type { Command } from 'commander';
import type { App } from '../context.js';
import { waitForShutdown } from '../shutdown.js';

/** Adds `dev` to `program`. */
export function addDevCommand(app: App, program: Command): void {
  program
    .command('dev')
    .description('run all services in one process for development')
    .option('--data-dir <dir>', 'directory for the dev server data', './.cairn')
    .option('--dev-root-token-id <id>', 'use this root token instead of a random one')
    .option('--secrets-address <host:port>', 'listen address of the secrets service', '127.0.0.1:8200')
    .action(async (opts: { dataDir: string; devRootTokenId?: string; secretsAddress: string }) => {
      app.exitCode = await runDev(app, opts);
    });
}

async function runDev(app: App, opts: { dataDir: string; devRootTokenId?: string; secretsAddress: string }): Promise<number> {
  // Loaded on demand so client commands never load the server code.
  const { startDev } = await import('../../services/dev.js');
  const handle = await startDev({ dataDir: opts.dataDir, secretsAddress: opts.secretsAddress, rootTokenId: opts.devRootTokenId });
  const { url, rootToken } = handle.secrets;
  const out = (line: string) => app.io.stdout(`${line}\n`);
  out('==> Cairn dev server started.');
  out('');
  out(`    Secrets service: ${url}`);
  out(`    Root token:      ${rootToken}`);
  out('');
  out(`The dev server keeps its data in ${opts.dataDir}.`);
  out('');
  out('WARNING! Dev mode is enabled. The secrets service was initialised with ONE unseal key,');
  out(`kept in clear in ${opts.dataDir}/dev-unseal-key so that restarts need no steps: anyone`);
  out('who can read that directory can read every secret. Never put real secrets in dev mode.');
  out('');
  out('You may need to set the following environment variables:');
  out('');
  out(`    $ export SECRETS_ADDR='${url}'`);
  out(`    $ export SECRETS_TOKEN='${rootToken}'`);
  out('');
  out('Press Ctrl-C to stop.');

  await waitForShutdown(app);
  app.io.stderr('==> Stopping the dev server…\n');
  await handle.close();
  return 0;
}
