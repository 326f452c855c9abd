import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatExpiration, parseStatements, queriesOf, quoteIdent, renderQuery } from './statements.js';

describe('database statements', () => {
  const sql = `CREATE ROLE "{{name}}" WITH LOGIN PASSWORD '{{password}}'; GRANT SELECT ON ALL TABLES IN SCHEMA public TO "{{name}}";`;

  it('accepts every form the reference accepts: text, base64 of it, a JSON array, base64 of one, an array', () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    assert.deepEqual(parseStatements(sql, 'f'), [sql]);
    assert.deepEqual(parseStatements(b64(sql), 'f'), [sql]);
    assert.deepEqual(parseStatements(JSON.stringify([sql, 'SELECT 1']), 'f'), [sql, 'SELECT 1']);
    assert.deepEqual(parseStatements(b64(JSON.stringify([sql])), 'f'), [sql]);
    assert.deepEqual(parseStatements([sql, ' ', 'SELECT 1'], 'f'), [sql, 'SELECT 1']);
    assert.deepEqual(parseStatements('', 'f'), []);
    assert.throws(() => parseStatements(42, 'revocation_statements'), /^InputError: revocation_statements: must be a string or an array of strings$/);
    assert.throws(() => parseStatements(Array(65).fill('x'), 'f'), /at most 64 statements/);
  });

  it('splits at ";" except a block with END; substitutes with the quotes doubled', () => {
    assert.deepEqual(queriesOf([sql]), [
      `CREATE ROLE "{{name}}" WITH LOGIN PASSWORD '{{password}}'`,
      'GRANT SELECT ON ALL TABLES IN SCHEMA public TO "{{name}}"',
    ]);
    const block = `DO $$ BEGIN CREATE ROLE "{{name}}"; END $$;`;
    assert.deepEqual(queriesOf([block]), [block]);
    assert.equal(
      renderQuery(`ALTER ROLE "{{ name }}" PASSWORD '{{password}}' VALID UNTIL '{{expiration}}' -- {{username}}`, {
        name: 'a"b',
        password: "p'w",
        expiration: 'e',
      }),
      `ALTER ROLE "a""b" PASSWORD 'p''w' VALID UNTIL 'e' -- a""b`,
    );
    assert.equal(renderQuery('{{password}}', { name: 'x' }), '{{password}}', 'a value not given stays as it is');
    assert.equal(quoteIdent('we"ird\u0000rest'), '"we""ird"');
    assert.equal(formatExpiration(new Date('2026-01-02T03:04:05.678Z')), '2026-01-02 03:04:05+0000');
  });
});
