/** Child process for the crash test: `cairn dev` on a given data dir; prints its URL once listening. */
import { startDev } from '../../../src/services/dev.js';
import { silentLogger } from '../../../src/kernel/log/logger.js';

const handle = await startDev({
  dataDir: process.argv[2],
  secretsAddress: '127.0.0.1:0',
  rootTokenId: 'crash-root',
  gatewayAddresses: { api: '127.0.0.1:0', cluster: '127.0.0.1:0', proxy: '127.0.0.1:0', ops: '127.0.0.1:0' },
  meshAddress: '127.0.0.1:0',
  schedAddress: '127.0.0.1:0',
  log: silentLogger(),
});
process.stdout.write(JSON.stringify({ url: handle.secrets.url }) + '\n');
