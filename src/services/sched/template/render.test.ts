/**
 * The job template functions on the real engine: the helpers' Go behaviour, and the data
 * functions' consul-template way (a render over a cache: what is used, what is missing, what
 * a cached value renders to), with the event text of a waiting template.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TemplateError } from '../../../kernel/template/index.js';
import { describeDependency, type Dependency } from './dependency.js';
import { missingMessage, parseJobTemplate, renderJobTemplate, type RenderContext } from './render.js';

const NOW = new Date(Date.UTC(2026, 10, 28, 9, 5, 7, 250));

function render(text: string, ctx: Partial<RenderContext> = {}): ReturnType<typeof renderJobTemplate> {
  const t = parseJobTemplate(text, { name: 'local/out' });
  return renderJobTemplate(t, { cache: new Map(), env: {}, now: () => NOW, ...ctx });
}

const out = (text: string, ctx: Partial<RenderContext> = {}): string => {
  const r = render(text, ctx);
  assert.deepEqual(r.missing, [], `nothing missing for ${text}`);
  return r.output;
};

const cache = (entries: [Dependency, unknown][]): Map<string, unknown> => new Map(entries.map(([d, v]) => [describeDependency(d), v]));

describe('job template helpers', () => {
  const cases: [string, string][] = [
    ['{{ parseJSON `{"b":[1,"x"],"a":{"c":true}}` | toJSON }}', '{"a":{"c":true},"b":[1,"x"]}'],
    ['{{ toJSON "<a&b>" }}', '"\\u003ca\\u0026b\\u003e"'],
    ['{{ parseJSON `{"b":1,"a":2}` | toJSONPretty }}', '{\n  "a": 2,\n  "b": 1\n}'],
    ['{{ (parseJSON `{"port":8080,"hosts":["a","b"]}`).port }} {{ range (parseJSON `{"hosts":["a","b"]}`).hosts }}{{ . }}{{ end }}', '8080 ab'],
    ['{{ parseJSON "" }}', 'map[]'],
    ['{{ toLower "AbC" }} {{ toUpper "abc" }} {{ toTitle "hello wide-world o\'neil" }} [{{ trimSpace "  x \\n" }}]', "abc ABC Hello Wide-World O'Neil [x]"],
    ['{{ range split "," "a,b,,c" }}[{{ . }}]{{ end }} {{ len (split "," "  ") }}', '[a][b][][c] 0'],
    ['{{ split "," "a,b" | join "+" }}', 'a+b'],
    ['{{ replaceAll "." "-" "a.b.c" }} {{ "a.b" | replaceAll "." "_" }}', 'a-b-c a_b'],
    [
      '{{ contains "b" (split "," "a,b") }} {{ contains "z" (split "," "a,b") }} {{ "ell" | contains "hello" | not }} {{ contains "ell" "hello" }}',
      'true false true true',
    ],
    ['{{ base64Encode "hé" }} {{ base64Decode "aMOp" }}', 'aMOp hé'],
    [
      '{{ timestamp }} {{ timestamp "unix" }} {{ timestamp "2006-01-02 15:04:05.000 Mon Jan _2" }}',
      '2026-11-28T09:05:07Z 1795856707 2026-11-28 09:05:07.250 Sat Nov 28',
    ],
    ['{{ env "HOME" }}|{{ env "UNSET" }}', '/srv|'],
  ];
  for (const [text, want] of cases) it(text, () => assert.equal(out(text, { env: { HOME: '/srv' } }), want));

  it('fails a render with the function named, in Go wording', () => {
    assert.throws(() => render('{{ base64Decode "a$" }}'), {
      message:
        'template: local/out:1:3: executing "local/out" at <base64Decode "a$">: error calling base64Decode: base64Decode: illegal base64 data at input byte 1',
    });
    assert.throws(
      () => render('{{ parseJSON "{" }}'),
      (e: unknown) => e instanceof TemplateError && /error calling parseJSON/.test(e.message),
    );
    assert.throws(() => render('{{ join "," "ab" }}'), /error calling join: join: expected a list, got string/);
  });
});

describe('job template data functions', () => {
  it('key blocks until the key exists; keyOrDefault never; both are used', () => {
    const r = render('a={{ key "app/a" }} b={{ keyOrDefault "app/b" "dflt" }}');
    assert.deepEqual(r.missing, [{ kind: 'kv.block', path: 'app/a' }]);
    assert.deepEqual(r.used, [
      { kind: 'kv.block', path: 'app/a' },
      { kind: 'kv.get', path: 'app/b' },
    ]);
    const absent = render('{{ key "app/a" }}', { cache: cache([[{ kind: 'kv.block', path: 'app/a' }, null]]) });
    assert.equal(absent.missing.length, 1, 'a key known not to exist still blocks');
    const full = render('a={{ key "/app/a" }} b={{ keyOrDefault "app/b" "dflt" }} e={{ keyExists "app/a" }}', {
      cache: cache([
        [{ kind: 'kv.block', path: 'app/a' }, 'one'],
        [{ kind: 'kv.get', path: 'app/b' }, null],
        [{ kind: 'kv.exists', path: 'app/a' }, 'one'],
      ]),
    });
    assert.deepEqual(full, {
      output: 'a=one b=dflt e=true',
      missing: [],
      used: [
        { kind: 'kv.block', path: 'app/a' },
        { kind: 'kv.get', path: 'app/b' },
        { kind: 'kv.exists', path: 'app/a' },
      ],
    });
    assert.deepEqual(render('{{ key "app/a@dc2" }}').missing, [{ kind: 'kv.block', path: 'app/a', dc: 'dc2' }]);
  });

  it('ls gives the top level, tree everything but folders, keys relative to the prefix', () => {
    const entries = [
      { Key: 'app/', Value: '' },
      { Key: 'app/a', Value: '1', ModifyIndex: 7 },
      { Key: 'app/sub/', Value: '' },
      { Key: 'app/sub/b', Value: '2' },
    ];
    const c = cache([[{ kind: 'kv.list', prefix: 'app' }, entries]]);
    assert.equal(out('{{ range ls "app" }}{{ .Key }}={{ .Value }}@{{ .ModifyIndex }};{{ end }}', { cache: c }), 'a=1@7;');
    assert.equal(out('{{ range tree "app" }}{{ .Key }}={{ .Value }} {{ .Path }};{{ end }}', { cache: c }), 'a=1 app/a;sub/b=2 app/sub/b;');
    assert.deepEqual(render('{{ range ls "app" }}{{ end }}{{ range tree "app" }}{{ end }}').missing, [{ kind: 'kv.list', prefix: 'app' }]);
    assert.throws(() => render('{{ range ls "app" }}{{ .Vlaue }}{{ end }}', { cache: c }), /can't evaluate field Vlaue in type \*KeyPair/);
  });

  it('service: passing instances by default, filters, tags, datacenters', () => {
    const inst = (id: string, Status: string) => ({
      Node: 'n1',
      NodeAddress: '10.0.0.1',
      ID: id,
      Name: 'web',
      Address: id === 'c' ? '' : `10.1.0.${id.charCodeAt(0)}`,
      Port: 80,
      Tags: ['v1'],
      Status,
    });
    const list = [inst('a', 'passing'), inst('b', 'warning'), inst('c', 'passing')];
    const c = cache([
      [{ kind: 'health.service', name: 'web', filter: ['passing'] }, list],
      [{ kind: 'health.service', name: 'web', filter: ['any'] }, list],
      [{ kind: 'health.service', name: 'web', filter: ['passing', 'warning'] }, list],
    ]);
    assert.equal(out('{{ range service "web" }}{{ .ID }}={{ .Address }}:{{ .Port }} {{ end }}', { cache: c }), 'a=10.1.0.97:80 c=10.0.0.1:80 ');
    assert.equal(out('{{ range service "web|any" }}{{ .ID }}{{ end }}', { cache: c }), 'abc');
    assert.equal(out('{{ range service "web" "passing,warning" }}{{ .ID }}{{ end }}', { cache: c }), 'abc');
    assert.equal(out('{{ with index (service "web") 0 }}{{ join "," .Tags }} {{ .Status }}{{ end }}', { cache: c }), 'v1 passing');
    const r = render('{{ service "db.primary@dc2~agent|passing,warning" }}');
    assert.deepEqual(r.missing, [{ kind: 'health.service', name: 'primary', tag: 'db', dc: 'dc2', near: 'agent', filter: ['passing', 'warning'] }]);
    assert.equal(missingMessage(r.missing), 'Missing: health.service(db.primary@dc2~agent|passing,warning)');
    assert.throws(() => render('{{ service "web|bogus" }}'), /error calling service: health.service: invalid filter: "bogus" in "web\|bogus"/);
  });

  it('services lists the catalog by name', () => {
    const c = cache([[{ kind: 'catalog.services' }, { web: ['v1', 'v2'], api: null }]]);
    assert.equal(out('{{ range services }}{{ .Name }}[{{ join "," .Tags }}] {{ end }}', { cache: c }), 'api[] web[v1,v2] ');
    assert.deepEqual(render('{{ services "@dc2" }}').missing, [{ kind: 'catalog.services', dc: 'dc2' }]);
  });

  it('secret reads, writes with k=v arguments, and lists; waits while absent', () => {
    const read: Dependency = { kind: 'secret.read', path: 'secret/data/web' };
    const waiting = render('pw={{ with secret "secret/data/web" }}{{ .Data.data.pw }}{{ end }}');
    assert.deepEqual(waiting, { output: 'pw=', missing: [read], used: [read] });
    assert.equal(missingMessage(waiting.missing), 'Missing: secret.read(secret/data/web)');
    const c = cache([
      [read, { lease_id: '', lease_duration: 0, renewable: false, data: { data: { pw: 's3cr3t' }, metadata: { version: 2 } } }],
      [
        { kind: 'secret.write', path: 'pki/issue/web', data: { common_name: 'a.b', ttl: '1h' } },
        { lease_id: 'pki/x', lease_duration: 3600, renewable: true, data: { certificate: 'CERT' } },
      ],
      [{ kind: 'secret.list', path: 'secret/metadata/' }, ['b', 'a']],
    ]);
    assert.equal(out('{{ with secret "secret/data/web" }}{{ .Data.data.pw }} v{{ .Data.metadata.version }}{{ end }}', { cache: c }), 's3cr3t v2');
    assert.equal(
      out('{{ with secret "pki/issue/web" "common_name=a.b" "ttl=1h" }}{{ .Data.certificate }} {{ .LeaseID }} {{ .LeaseDuration }} {{ .Renewable }}{{ end }}', {
        cache: c,
      }),
      'CERT pki/x 3600 true',
    );
    assert.equal(out('{{ range secrets "secret/metadata/" }}{{ . }}{{ end }}', { cache: c }), 'ab');
    // A written token's auth block as consul-template's `SecretAuth`.
    const created = cache([
      [
        { kind: 'secret.write', path: 'auth/token/create', data: { policies: 'default' } },
        { auth: { client_token: 'hvs.x', accessor: 'acc', policies: ['default'], lease_duration: 3600, renewable: true } },
      ],
    ]);
    assert.equal(
      out(
        '{{ with secret "auth/token/create" "policies=default" }}{{ .Auth.ClientToken }} {{ .Auth.Accessor }} {{ .Auth.Policies }} {{ .Auth.LeaseDuration }}{{ end }}',
        {
          cache: created,
        },
      ),
      'hvs.x acc [default] 3600',
    );
    assert.throws(() => out('{{ with secret "auth/token/create" "policies=default" }}{{ .Auth.client_token }}{{ end }}', { cache: created }), /client_token/);
    const w = render('{{ secret "pki/issue/web" "common_name=a.b" }}').missing[0]!;
    assert.match(describeDependency(w), /^secret\.write\(pki\/issue\/web -> [0-9a-f]{8}\)$/);
    assert.ok(!describeDependency(w).includes('a.b'), 'the written data is not in the text');
    assert.throws(() => render('{{ secret "pki/issue/web" "nokey" }}'), /secret: invalid value "nokey" - must be key=value/);
  });

  it('a render failing only because data is missing waits instead of failing', () => {
    const t = parseJobTemplate('{{ with secret "secret/data/x" }}{{ .Data.data.pw }}{{ end }}', { name: 'x', errorOnMissingKey: true });
    const waiting = renderJobTemplate(t, { cache: new Map(), env: {} });
    assert.deepEqual(waiting.missing, [{ kind: 'secret.read', path: 'secret/data/x' }]);
    const c = cache([[{ kind: 'secret.read', path: 'secret/data/x' }, { data: { data: {} } }]]);
    assert.throws(() => renderJobTemplate(t, { cache: c, env: {} }), /map has no entry for key "pw"/);
  });

  it('names at most three dependencies in the event, then how many more', () => {
    const r = render('{{ key "d" }}{{ key "c" }}{{ key "b" }}{{ key "a" }}{{ key "a" }}');
    assert.equal(r.missing.length, 4);
    assert.equal(missingMessage(r.missing), 'Missing: kv.block(a), kv.block(b), kv.block(c), and 1 more');
  });

  it('parses with the delimiters asked for and names the template in errors', () => {
    const t = parseJobTemplate('<< toUpper "x" >> {{ x }}', { name: 'n', leftDelim: '<<', rightDelim: '>>' });
    assert.equal(renderJobTemplate(t, { cache: new Map(), env: {} }).output, 'X {{ x }}');
    assert.throws(() => parseJobTemplate('ok\n{{ secert "x" }}', { name: 'local/app.env' }), {
      message: 'template: local/app.env:2: function "secert" not defined',
    });
  });
});
