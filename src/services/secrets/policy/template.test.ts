/**
 * Templated policy paths (template.ts): which parameters a policy may hold, how a token's
 * login fills them in, and the values that leave a rule out; the policy store compiles a
 * templated set per identity.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parsePolicy, PolicyParseError } from './parse.js';
import { checkTemplates, fillTemplates, type TemplateIdentity } from './template.js';

const who: TemplateIdentity = { mountAccessor: 'auth_jwt_1234', name: 'web', metadata: { cairn_namespace: 'default', cairn_job_id: 'web' } };
const alias = (rest: string) => `{{identity.entity.aliases.auth_jwt_1234.${rest}}}`;

describe('templated policy paths', () => {
  it('fills in the alias name and metadata of the login that made the token', () => {
    assert.equal(fillTemplates(`secret/data/${alias('metadata.cairn_namespace')}/${alias('metadata.cairn_job_id')}/*`, who), 'secret/data/default/web/*');
    assert.equal(fillTemplates(`kv/{{ identity.entity.aliases.auth_jwt_1234.name }}`, who), 'kv/web');
  });

  it('leaves the rule out when it cannot be filled in or the value would change the path', () => {
    assert.equal(fillTemplates(`kv/${alias('name')}`, undefined), undefined);
    assert.equal(fillTemplates('kv/{{identity.entity.aliases.auth_other.name}}', who), undefined);
    assert.equal(fillTemplates(`kv/${alias('metadata.missing')}`, who), undefined);
    for (const bad of ['', '*', '+', 'a/b', '..', '.', 'a\0b'])
      assert.equal(fillTemplates(`kv/${alias('name')}/x`, { ...who, name: bad }), undefined, JSON.stringify(bad));
  });

  it('refuses parameters it cannot fill in and unclosed templates, naming the path', () => {
    assert.doesNotThrow(() => checkTemplates(`a/${alias('metadata.k')}`));
    for (const param of [
      'identity.entity.id',
      'identity.entity.name',
      'identity.entity.metadata.team',
      'identity.groups.names.ops.id',
      'identity.entity.aliases.x.id',
    ])
      assert.throws(() => checkTemplates(`a/{{${param}}}`), {
        message: `unsupported template parameter "${param}": Cairn fills in identity.entity.aliases.<mount accessor>.name and .metadata.<key>`,
      });
    assert.throws(() => checkTemplates('a/{{identity.entity.aliases.x.name'), /unclosed template/);
    assert.throws(
      () => parsePolicy('p', 'path "a/{{identity.entity.id}}" { capabilities = ["read"] }'),
      (e: unknown) => e instanceof PolicyParseError && /path "a\/\{\{identity\.entity\.id\}\}": unsupported template parameter/.test(e.message),
    );
    const parsed = parsePolicy('p', `path "a/${alias('name')}" { capabilities = ["read"] }\npath "b" { capabilities = ["read"] }`);
    assert.deepEqual(
      parsed.rules.map((r) => r.templated ?? false),
      [true, false],
    );
  });
});
