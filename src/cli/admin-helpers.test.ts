import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { flagBool } from './args.js';
import { mountPathOf } from './commands/auth.js';
import { authFromLookup, loginValues } from './commands/login.js';
import { namespacePath } from './commands/namespace.js';
import { authListTable, initText, sealStatusJson, sealStatusRows, sealStatusTable, wrapAtLength } from './format-operator.js';
import { applyKeys, readHiddenLine, type TerminalInput } from './prompt.js';
import { eraseToken, readStoredToken, storeToken, tokenHelperPath } from './token-helper.js';

const sealed = { type: 'shamir', initialized: true, sealed: true, t: 3, n: 5, progress: 1, nonce: 'abc', version: '0.1.0', storage_type: 'sqlite' };

describe('operator output helpers', () => {
  it('wraps prose at 80 columns, keeping line breaks and long words', () => {
    const text = 'word '.repeat(40).trim();
    const lines = wrapAtLength(text).split('\n');
    assert.ok(lines.every((l) => l.length <= 80));
    assert.equal(lines[0].length, 79);
    assert.equal(wrapAtLength('a b\nc', 80), 'a b\nc');
    assert.equal(wrapAtLength(`x ${'y'.repeat(90)} z`, 80), `x\n${'y'.repeat(90)}\nz`);
  });

  it('shows progress and nonce only while sealed, cluster only once unsealed', () => {
    assert.deepEqual(
      sealStatusRows(sealed).map((r) => r[0]),
      ['Seal Type', 'Initialized', 'Sealed', 'Total Shares', 'Threshold', 'Unseal Progress', 'Unseal Nonce', 'Version', 'Storage Type', 'HA Enabled'],
    );
    assert.deepEqual(sealStatusRows(sealed)[5], ['Unseal Progress', '1/3']);
    const open = { ...sealed, sealed: false, progress: 0, nonce: '', cluster_name: 'c1', cluster_id: 'id-1' };
    assert.deepEqual(
      sealStatusRows(open).map((r) => r[0]),
      ['Seal Type', 'Initialized', 'Sealed', 'Total Shares', 'Threshold', 'Version', 'Storage Type', 'Cluster Name', 'Cluster ID', 'HA Enabled'],
    );
    assert.match(sealStatusTable({ ...sealed, nonce: '' }), /^Unseal Nonce\s+n\/a$/m);
    assert.equal(sealStatusJson(sealed).ha_enabled, false);
  });

  it('prints base64 unseal keys, the root token and the advice', () => {
    const text = initText({ keys: ['aa', 'bb'], keys_base64: ['qg==', 'uw=='], root_token: 'root-1' }, 2, 2);
    assert.match(text, /^Unseal Key 1: qg==\nUnseal Key 2: uw==\n\nInitial Root Token: root-1\n\n/);
    assert.match(text, /at least 2 of\s+these keys/);
    assert.ok(text.split('\n').every((l) => l.length <= 80));
    assert.match(initText({ keys: ['aa'], keys_base64: [], root_token: 'r' }, 1, 1), /^Unseal Key 1: aa$/m);
  });

  it('lists auth methods sorted with n/a for empty cells', () => {
    const table = authListTable({
      'userpass/': { type: 'userpass', description: '', accessor: 'auth_userpass_1', options: null },
      'token/': { type: 'token', description: 'token based credentials', accessor: 'auth_token_1', options: null },
    });
    assert.equal(
      table,
      [
        'Path         Type        Accessor           Description                Version',
        '----         ----        --------           -----------                -------',
        'token/       token       auth_token_1       token based credentials    n/a',
        'userpass/    userpass    auth_userpass_1    n/a                        n/a',
      ].join('\n'),
    );
  });
});

describe('argument helpers of the admin commands', () => {
  it('reads [bool] flags like Go', () => {
    assert.equal(flagBool(undefined, 'x'), false);
    assert.equal(flagBool(true, 'x'), true);
    assert.equal(flagBool('false', 'x'), false);
    assert.throws(() => flagBool('maybe', 'x'), /invalid boolean/);
  });

  it('normalises mount and namespace paths', () => {
    assert.equal(mountPathOf('/userpass/'), 'userpass/');
    assert.equal(mountPathOf('  '), '');
    assert.equal(namespacePath('', 'team'), 'team/');
    assert.equal(namespacePath('/a/b/', 'c/'), 'a/b/c/');
  });

  it('turns login arguments into values; a bare first argument is the token', () => {
    const read = (p: string) => `file:${p}`;
    assert.deepEqual(loginValues('token', ['s.abc'], read), { token: 's.abc' });
    assert.deepEqual(loginValues('userpass', ['username=alice', 'password=@pw.txt'], read), { username: 'alice', password: 'file:pw.txt' });
    assert.throws(() => loginValues('userpass', ['alice'], read), /key=value/);
  });

  it('builds the auth block of a token login from its lookup', () => {
    const auth = authFromLookup({
      accessor: 'acc',
      creation_time: 0,
      creation_ttl: 0,
      display_name: 'root',
      entity_id: '',
      expire_time: null,
      explicit_max_ttl: 0,
      id: 'tok',
      meta: null,
      num_uses: 0,
      orphan: true,
      path: 'auth/token/root',
      policies: ['root'],
      renewable: false,
      ttl: 0,
      type: 'service',
    });
    assert.equal(auth.client_token, 'tok');
    assert.deepEqual(auth.token_policies, ['root']);
    assert.equal(auth.lease_duration, 0);
  });
});

describe('hidden prompt', () => {
  it('applies keystrokes: backspace, Ctrl-U, Enter, Ctrl-C, Ctrl-D', () => {
    assert.deepEqual(applyKeys('', 'abc'), { value: 'abc', done: false, cancelled: false });
    assert.deepEqual(applyKeys('abc', '\u007fd\r rest'), { value: 'abd', done: true, cancelled: false });
    assert.deepEqual(applyKeys('abc', '\u0015x\n'), { value: 'x', done: true, cancelled: false });
    assert.equal(applyKeys('abc', '\u0003').cancelled, true);
    assert.equal(applyKeys('', '\u0004').cancelled, true);
    assert.equal(applyKeys('a', '\u0004\u001b').value, 'a');
  });

  it('reads a line with raw mode on, and restores it', async () => {
    const listeners: ((c: string) => void)[] = [];
    const modes: boolean[] = [];
    const input: TerminalInput = {
      isTTY: true,
      setRawMode: (m: boolean) => modes.push(m),
      setEncoding: () => undefined,
      on: (_e, l) => listeners.push(l),
      off: (_e, l) => listeners.splice(listeners.indexOf(l), 1),
      resume: () => undefined,
      pause: () => undefined,
    };
    let shown = '';
    const line = readHiddenLine('Key (will be hidden): ', input, { write: (s: string) => (shown += s) });
    listeners[0]('sec');
    listeners[0]('ret\rignored');
    assert.equal(await line, 'secret');
    assert.deepEqual(modes, [true, false]);
    assert.equal(shown, 'Key (will be hidden): \n');
    assert.equal(listeners.length, 0);
  });

  it('refuses to prompt when standard input is not a terminal', async () => {
    const input = { isTTY: false, setEncoding: () => undefined, on: () => undefined, off: () => undefined, resume: () => undefined, pause: () => undefined };
    await assert.rejects(readHiddenLine('Password (will be hidden): ', input), /Password not given, and standard input is not a terminal/);
  });
});

describe('token helper file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-token-helper-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('uses CAIRN_TOKEN_PATH, else ~/.cairn-token', () => {
    assert.equal(tokenHelperPath({ CAIRN_TOKEN_PATH: '/x/t' }), '/x/t');
    assert.equal(tokenHelperPath({ HOME: '/home/u' }), '/home/u/.cairn-token');
    assert.equal(tokenHelperPath({}), join(homedir(), '.cairn-token'));
  });

  it('stores with mode 0600, reads trimmed, erases', () => {
    const env = { CAIRN_TOKEN_PATH: join(dir, 'tok') };
    assert.equal(readStoredToken(env), undefined);
    writeFileSync(env.CAIRN_TOKEN_PATH, 'old', { mode: 0o644 });
    storeToken(env, 'cs.abc');
    assert.equal(readFileSync(env.CAIRN_TOKEN_PATH, 'utf8'), 'cs.abc');
    assert.equal(statSync(env.CAIRN_TOKEN_PATH).mode & 0o777, 0o600);
    writeFileSync(env.CAIRN_TOKEN_PATH, '  cs.def\n');
    assert.equal(readStoredToken(env), 'cs.def');
    writeFileSync(env.CAIRN_TOKEN_PATH, '\n');
    assert.equal(readStoredToken(env), undefined);
    eraseToken(env);
    eraseToken(env);
    assert.equal(readStoredToken(env), undefined);
  });
});
