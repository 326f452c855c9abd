/**
 * The engine against Go's documented `text/template` semantics: table cases in the manner of
 * Go's `exec_test.go` and `parse_test.go` (expected outputs and error texts are Go's), and the
 * bounds (a huge range, deep nesting, a large output, a large input, recursion) refused with
 * an error instead of hanging.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseTemplate, templateFunc, TemplateError, type TemplateOptions } from './index.js';

class Host {
  constructor(
    readonly Name: string,
    readonly Port: number,
  ) {}
  Addr(scheme: unknown): string {
    return `${String(scheme)}://${this.Name}:${this.Port}`;
  }
}

const DATA = {
  str: 'hello',
  n: 7,
  f: 1.5,
  t: true,
  nil: null,
  list: ['a', 'b', 'c'],
  empty: [],
  m: { z: 1, a: 2, m: 3 },
  nested: { inner: { v: 'deep' } },
  host: new Host('db', 5432),
  html: '<b>"x" & \'y\'</b>',
};

function render(text: string, data: unknown = DATA, options: TemplateOptions = {}): string {
  return parseTemplate(text, { name: 't', ...options }).execute(data);
}

function fails(text: string, message: string | RegExp, data: unknown = DATA, options: TemplateOptions = {}): void {
  assert.throws(
    () => render(text, data, options),
    (e: unknown) => {
      assert.ok(e instanceof TemplateError, String(e));
      if (typeof message === 'string') assert.equal(e.message, message);
      else assert.match(e.message, message);
      return true;
    },
  );
}

describe('template engine: execution (Go semantics)', () => {
  const cases: [string, string][] = [
    ['plain text', 'plain text'],
    ['{{.str}} {{.n}} {{.f}} {{.t}}', 'hello 7 1.5 true'],
    [
      '{{.}}',
      `map[empty:[] f:1.5 host:{db 5432} html:<b>"x" & 'y'</b> list:[a b c] m:map[a:2 m:3 z:1] n:7 nested:map[inner:map[v:deep]] nil:<nil> str:hello t:true]`,
    ],
    ['{{.missing}}', '<no value>'],
    ['{{.missing.deeper}}', '<no value>'],
    ['{{.nil}}', '<nil>'],
    ['{{print .missing}}', '<nil>'],
    ['{{.nested.inner.v}}', 'deep'],
    ['{{.host.Name}}:{{.host.Port}}', 'db:5432'],
    ['{{.host.Addr "tcp"}}', 'tcp://db:5432'],
    ['{{"tcp" | .host.Addr}}', 'tcp://db:5432'],
    ['{{(.nested).inner.v}}', 'deep'],
    // if / else if / else
    ['{{if .t}}yes{{else}}no{{end}}', 'yes'],
    ['{{if .empty}}yes{{else}}no{{end}}', 'no'],
    ['{{if .missing}}yes{{else if .n}}n{{else}}no{{end}}', 'n'],
    ['{{if eq .n 1}}1{{else if eq .n 2}}2{{else if eq .n 7}}7{{end}}', '7'],
    ['{{if and .t .n}}both{{end}}|{{if or .missing .empty}}any{{else}}none{{end}}', 'both|none'],
    ['{{and 1 0 "x"}}|{{and 1 "x"}}|{{or 0 "" "y"}}|{{or 0 ""}}', '0|x|y|'],
    ['{{not .t}} {{not .empty}}', 'false true'],
    // with / else with
    ['{{with .nested.inner}}{{.v}}{{end}}', 'deep'],
    ['{{with .missing}}x{{else}}none{{end}}', 'none'],
    ['{{with .missing}}a{{else with .str}}{{.}}{{end}}', 'hello'],
    ['{{with $x := .str}}{{$x}}{{.}}{{end}}', 'hellohello'],
    // range
    ['{{range .list}}[{{.}}]{{end}}', '[a][b][c]'],
    ['{{range $i, $v := .list}}{{$i}}={{$v}} {{end}}', '0=a 1=b 2=c '],
    ['{{range $v := .list}}{{$v}}{{end}}', 'abc'],
    ['{{range $k, $v := .m}}{{$k}}{{$v}}{{end}}', 'a2m3z1'],
    ['{{range .m}}{{.}}{{end}}', '231'],
    ['{{range .empty}}x{{else}}empty{{end}}', 'empty'],
    ['{{range .missing}}x{{else}}none{{end}}', 'none'],
    ['{{range 4}}{{.}}{{end}}', '0123'],
    ['{{range $i := 3}}{{$i}}{{end}}', '012'],
    ['{{range .list}}{{if eq . "b"}}{{continue}}{{end}}{{.}}{{end}}', 'ac'],
    ['{{range .list}}{{if eq . "b"}}{{break}}{{end}}{{.}}{{end}}', 'a'],
    // variables
    ['{{$x := 1}}{{$x}}{{$x = 2}}{{$x}}', '12'],
    ['{{$x := 0}}{{range .list}}{{$x = .}}{{end}}{{$x}}', 'c'],
    ['{{$x := "out"}}{{if true}}{{$x := "in"}}{{$x}}{{end}}{{$x}}', 'inout'],
    ['{{$x := .nested}}{{$x.inner.v}}', 'deep'],
    // pipelines
    ['{{.str | printf "%s!"}}', 'hello!'],
    ['{{"a" | printf "%s%s" "b"}}', 'ba'],
    ['{{.n | printf "%d" | len}}', '1'],
    // define / template / block
    ['{{define "x"}}[{{.}}]{{end}}{{template "x" .str}}{{template "x"}}', '[hello][<no value>]'],
    ['{{block "b" .n}}<{{.}}>{{end}}', '<7>'],
    ['{{define "v"}}{{$}}{{end}}{{$y := 1}}{{template "v" .n}}', '7'],
    // trim markers and comments
    ['a  {{- 1 -}}  b', 'a1b'],
    ['a {{-3}} b', 'a -3 b'],
    ['x{{/* a comment */}}y', 'xy'],
    ['x  {{- /* trimmed */ -}}  y', 'xy'],
    ['{{- "a" }}\n  {{- "b" -}}\n', 'ab'],
    // literals
    ["{{1}} {{-2}} {{0x1F}} {{0o17}} {{017}} {{0b101}} {{1_000}} {{1.5}} {{1e3}} {{'a'}}", '1 -2 31 15 15 5 1000 1.5 1000 97'],
    ['{{"a\\tb\\u00e9\\x41"}}{{`raw\\n`}}', 'a\tbéAraw\\n'],
    ['{{true}} {{false}}', 'true false'],
    // comparisons
    ['{{eq 1 1}} {{eq "a" "b"}} {{eq 1 2 3 1}} {{ne 1 2}} {{lt 1 2}} {{le 2 2}} {{gt "b" "a"}} {{ge 1 2}}', 'true false true true true true true false'],
    ['{{eq .missing "x"}} {{eq .nil .missing}}', 'false true'],
    // len, index, slice
    ['{{len .list}} {{len .m}} {{len "héllo"}}', '3 3 6'],
    ['{{index .list 1}} {{index .m "z"}} {{index .nested "inner" "v"}} {{index "abc" 0}} {{index .m "nope"}}', 'b 1 deep 97 <no value>'],
    ['{{slice .list 1}} {{slice .list 1 2}} {{slice "hello" 1 3}} {{slice "hello"}}', '[b c] [b] el hello'],
    // print family
    ['{{print 1 2 "a" 3 "b" "c"}}', '1 2a3bc'],
    ['{{println 1 "a"}}', '1 a\n'],
    ['{{printf "%d|%5d|%-5d|%05d|%x|%X|%o|%b|%c|%U" 42 42 42 42 255 255 8 5 65 65}}', '42|   42|42   |00042|ff|FF|10|101|A|U+0041'],
    ['{{printf "%s|%q|%v|%10s|%-4s|%.2s|%x" "hi" "a\\"b" "v" "r" "l" "trunc" "hi"}}', 'hi|"a\\"b"|v|         r|l   |tr|6869'],
    ['{{printf "%f|%.2f|%e|%g|%v|%8.3f" 3.14159 3.14159 1234.5678 0.000012 2.5 3.14159}}', '3.141590|3.14|1.234568e+03|1.2e-05|2.5|   3.142'],
    ['{{printf "%t|%v|%T|%T|%T|%%" true .list 1 "s" .m}}', 'true|[a b c]|int|string|map[string]interface {}|%'],
    ['{{printf "%d %d" 1}}|{{printf "%d" 1 2}}|{{printf "%d" "x"}}|{{printf "%z" 1}}', '1 %!d(MISSING)|1%!(EXTRA int=2)|%!d(string=x)|%!z(int=1)'],
    ['{{printf "%v" 1234567.5}} {{printf "%v" 0.00001}} {{.f}}', '1.2345675e+06 1e-05 1.5'],
    // escapers
    ['{{html .html}}', '&lt;b&gt;&#34;x&#34; &amp; &#39;y&#39;&lt;/b&gt;'],
    ['{{js .html}}', '\\u003Cb\\u003E\\"x\\" \\u0026 \\\'y\\\'\\u003C/b\\u003E'],
    ['{{urlquery "a b&c=d/é"}}', 'a+b%26c%3Dd%2F%C3%A9'],
    ['{{.str | html}}', 'hello'],
  ];
  for (const [text, want] of cases) {
    it(text, () => assert.equal(render(text), want));
  }

  it('uses `$` as the data in range bodies and in called templates', () => {
    assert.equal(render('{{$}}', 'x'), 'x');
    assert.equal(render('{{range .}}{{$}}{{end}}', ['a', 'b']), '[a b][a b]');
    assert.equal(render('{{range .list}}{{$.str}}{{end}}'), 'hellohellohello');
    assert.equal(render('{{define "x"}}{{$.k}}{{end}}{{template "x" .m}}', DATA), '<no value>');
  });

  it('reaches no JavaScript machinery through fields', () => {
    fails('{{.host.constructor}}', /can't evaluate field constructor in type \*Host$/);
    fails('{{.host.__proto__}}', /can't evaluate field __proto__ in type \*Host$/);
    fails('{{.host.toString}}', /can't evaluate field toString in type \*Host$/);
    assert.equal(render('{{.m.constructor}} {{index .m "toString"}}'), '<no value> <no value>');
    assert.equal(render('{{(parse).__proto__}}', DATA, { funcs: { parse: templateFunc(() => JSON.parse('{"__proto__": "own"}') as unknown, 0) } }), 'own');
  });

  it('custom delimiters, missing keys as errors, function maps', () => {
    assert.equal(render('[[ .str ]] {{ .str }}', DATA, { leftDelim: '[[', rightDelim: ']]' }), 'hello {{ .str }}');
    assert.equal(render('{{.missing}}', DATA, { missingKey: 'zero' }), '<nil>');
    fails('{{.missing}}', 'template: t:1:2: executing "t" at <.missing>: map has no entry for key "missing"', DATA, { missingKey: 'error' });
    const funcs = {
      double: templateFunc((x) => Number(x) * 2),
      fail: templateFunc(() => {
        throw new Error('boom');
      }, 0),
    };
    assert.equal(render('{{double 21}} {{.n | double}}', DATA, { funcs }), '42 14');
    fails('{{fail}}', 'template: t:1:2: executing "t" at <fail>: error calling fail: boom', DATA, { funcs });
    fails('{{double 1 2}}', 'template: t:1:2: executing "t" at <double>: wrong number of args for double: want 1 got 2', DATA, { funcs });
  });

  it('a parsed template runs again with other functions of the same names', () => {
    const t = parseTemplate('{{v}}', { name: 't', funcs: { v: templateFunc(() => 'a', 0) } });
    assert.equal(t.execute(null), 'a');
    assert.equal(t.execute(null, { v: templateFunc(() => 'b', 0) }), 'b');
    assert.deepEqual(parseTemplate('{{define "a"}}{{end}}{{block "b" .}}x{{end}}').names.sort(), ['a', 'b', 'template']);
  });
});

describe('template engine: errors in Go wording', () => {
  const parseErrors: [string, string][] = [
    ['{{nope 1}}', 'template: t:1: function "nope" not defined'],
    ['{{$x}}', 'template: t:1: undefined variable "$x"'],
    ['{{if .a}}x', 'template: t:1: unexpected EOF'],
    ['{{end}}', 'template: t:1: unexpected {{end}}'],
    ['a\n{{else}}', 'template: t:2: unexpected {{else}}'],
    ['{{.a', 'template: t:1: unclosed action'],
    ['{{break}}', 'template: t:1: {{break}} outside {{range}}'],
    ['{{range .}}{{end}}{{continue}}', 'template: t:1: {{continue}} outside {{range}}'],
    ['{{}}', 'template: t:1: missing value for command'],
    ['{{if}}{{end}}', 'template: t:1: missing value for if'],
    ['{{3x}}', 'template: t:1: bad number syntax: "3x"'],
    ['{{"abc}}', 'template: t:1: unterminated quoted string'],
    ['{{/* x }}', 'template: t:1: unclosed comment'],
    ['{{/* x */ y}}', 'template: t:1: comment ends before closing delimiter'],
    ['{{(1}}', 'template: t:1: unclosed left paren'],
    ['{{1)}}', 'template: t:1: unexpected right paren'],
    ['{{.a | 3}}', 'template: t:1: non executable command in pipeline stage 2'],
    ['{{range $a, $b, $c := .}}{{end}}', 'template: t:1: too many declarations in range'],
    ['{{with $a, $b := .}}{{end}}', 'template: t:1: too many declarations in with'],
    ['{{define "a"}}x{{end}}{{define "a"}}y{{end}}', 'template: t:1: template: multiple definition of template "a"'],
    ['{{template .x}}', 'template: t:1: unexpected <.x> in template clause'.replace('<.x>', '".x"')],
    ['line1\nline2\n{{ if .a }}\n{{ nope }}{{ end }}', 'template: t:4: function "nope" not defined'],
    ['{{1.2.3}}', 'template: t:1: unexpected ".3" in operand'],
    ['{{"a".b}}', 'template: t:1: unexpected . after term "\\"a\\""'],
  ];
  for (const [text, want] of parseErrors) it(`parse: ${JSON.stringify(text)}`, () => fails(text, want));

  const execErrors: [string, string][] = [
    ['{{.nil.x}}', 'template: t:1:2: executing "t" at <.nil.x>: nil pointer evaluating interface {}.x'],
    ['{{.str.x}}', 'template: t:1:2: executing "t" at <.str.x>: can\'t evaluate field x in type string'],
    ['{{.host.Nope}}', 'template: t:1:2: executing "t" at <.host.Nope>: can\'t evaluate field Nope in type *Host'],
    ['{{.m.a 1}}', 'template: t:1:2: executing "t" at <.m.a>: a is not a method but has arguments'],
    ['x\n  {{index .list 5}}', 'template: t:2:4: executing "t" at <index .list 5>: error calling index: index out of range: 5'],
    ['{{template "nope"}}', 'template: t:1:11: executing "t" at <{{template "nope"}}>: template "nope" not defined'],
    ['{{range .str}}{{end}}', 'template: t:1:8: executing "t" at <{{range .str}}{{end}...>: range can\'t iterate over hello'],
    ['{{len 3}}', 'template: t:1:2: executing "t" at <len 3>: error calling len: len of type int'],
    ['{{lt 1 "a"}}', 'template: t:1:2: executing "t" at <lt 1 "a">: error calling lt: incompatible types for comparison'],
    ['{{eq .list .list}}', 'template: t:1:2: executing "t" at <eq .list .list>: error calling eq: non-comparable type []interface {}'],
    ['{{1 2}}', 'template: t:1:2: executing "t" at <1>: can\'t give argument to non-function 1'],
    ['{{nil}}', 'template: t:1:2: executing "t" at <nil>: nil is not a command'],
    ['{{$x := 1}}{{range $i, $v := 3}}{{end}}', 'template: t:1:29: executing "t" at <3>: can\'t use 3 to iterate over more than one variable'],
  ];
  for (const [text, want] of execErrors) it(`exec: ${JSON.stringify(text)}`, () => fails(text, want));
});

describe('template engine: bounds', () => {
  it('stops a huge range after maxSteps, quickly', () => {
    fails('{{range 1000000000}}{{end}}', /template execution exceeds 1000000 steps$/);
    fails('{{range 1000}}{{range 1000}}{{range 1000}}x{{end}}{{end}}{{end}}', /exceeds/, DATA, { limits: { maxOutputBytes: 1e9 } });
    fails('{{range 50}}{{.}}{{end}}', /^template: t:1:\d+: executing "t" at <.*>: template execution exceeds 100 steps$/, DATA, { limits: { maxSteps: 100 } });
  });

  it('refuses nesting deeper than maxDepth at parse time', () => {
    const deep = '{{if 1}}'.repeat(100) + '{{end}}'.repeat(100);
    fails(deep, 'template: t:1: template nests too deep: more than 64 levels');
    const parens = `{{${'('.repeat(100)}1${')'.repeat(100)}}}`;
    fails(parens, 'template: t:1: template nests too deep: more than 64 levels');
    assert.equal(render(`${'{{if 1}}'.repeat(10)}x${'{{end}}'.repeat(10)}`, DATA, { limits: { maxDepth: 10 } }), 'x');
  });

  it('stops endless template recursion at maxDepth', () => {
    fails('{{define "r"}}{{template "r" .}}{{end}}{{template "r" .}}', /exceeded maximum template depth \(64\)$/);
  });

  it('stops output over maxOutputBytes, and strings grown by doubling', () => {
    fails('{{range 100}}0123456789{{end}}', /template output exceeds 500 bytes$/, DATA, { limits: { maxOutputBytes: 500 } });
    fails('{{$s := "xxxxxxxxxxxxxxxx"}}{{range 40}}{{$s = printf "%s%s" $s $s}}{{end}}', /(result exceeds 4194304 bytes|exceeds 1000000 steps)$/);
    assert.equal(render('{{printf "%01000001d" 1}}'), '%!(BADWIDTH)1');
  });

  it('refuses a text over maxInputBytes', () => {
    fails('x'.repeat(300 * 1024), 'template: t: template is 307200 bytes: at most 262144 are allowed');
  });
});

/** Cases of Go's `text/template/exec_test.go` (`execTests`), with its data restated as JSON-like values; `null`: Go expects an error. */
const GO_FUNCS = {
  add: templateFunc((a, b) => (a as number) + (b as number)),
  echo: templateFunc((a) => a),
  makemap: templateFunc(
    (...a) => {
      const m: Record<string, unknown> = {};
      for (let i = 0; i < a.length; i += 2) m[a[i] as string] = a[i + 1];
      return m;
    },
    0,
    'variadic',
  ),
  zeroArgs: templateFunc(() => 'zeroArgs', 0),
  oneArg: templateFunc((a) => {
    if (typeof a !== 'string') throw new Error('wrong type');
    return 'oneArg=' + a;
  }),
  twoArgs: templateFunc((a, b) => 'twoArgs=' + String(a) + String(b)),
};
const T_VAL = {
  X: 'x',
  I: 17,
  SI: [3, 4, 5],
  SIEmpty: [],
  MSI: { one: 1, two: 2, three: 3 },
  MSIone: { one: 1 },
  MSIEmpty: {},
  MXI: {},
  SB: [true, false],
  True: true,
  U: { V: 'v' },
  Empty0: null,
  Empty3: [7, 8],
  PSI: [21, 22, 23],
  SMSI: [
    { one: 1, two: 2 },
    { eleven: 11, twelve: 12 },
  ],
};
const GO_CASES: [string, string | null][] = [
  ['{{printf `%d %d %d` (1) (2 | add 3) (add 4 (add 5 6))}}', '1 5 15'],
  ['{{($).X}}', 'x'],
  ['{{($ | echo).X}}', 'x'],
  ['{{(makemap "up" "down" "left" "right").left}}', 'right'],
  ['{{if nil}}TRUE{{end}}', null],
  ['{{if 1.5}}NON-ZERO{{else}}ZERO{{end}}', 'NON-ZERO'],
  ['{{if ``}}NON-EMPTY{{else}}EMPTY{{end}}', 'EMPTY'],
  ['{{if .MXI.none}}NON-ZERO{{else}}ZERO{{end}}', 'ZERO'],
  ['{{if not .MXI.none}}ZERO{{else}}NON-ZERO{{end}}', 'ZERO'],
  ['{{if $x := true}}{{with $y := .I}}{{$x}},{{$y}}{{end}}{{end}}', 'true,17'],
  ['{{if $x := true}}{{with $x := .I}}{{$x}},{{end}}{{$x}}{{end}}', '17,true'],
  ['{{print nil}}', '<nil>'],
  ['{{print 1 2 3}}', '1 2 3'],
  ['{{printf "%04x" 127}}', '007f'],
  ['{{printf "%g" 3.5}}', '3.5'],
  ['{{printf "%#q" zeroArgs}}', '`zeroArgs`'],
  ['{{html "<script>alert(\\"XSS\\");</script>"}}', '&lt;script&gt;alert(&#34;XSS&#34;);&lt;/script&gt;'],
  ['{{"http://www.example.org/"|urlquery}}', 'http%3A%2F%2Fwww.example.org%2F'],
  ['{{not true}} {{not false}}', 'false true'],
  ['{{and false 0}} {{and 1 0}} {{and 0 true}} {{and 1 1}}', 'false 0 0 1'],
  ['{{or 0 0}} {{or 1 0}} {{or 0 true}} {{or 1 1}}', '0 1 true 1'],
  ['{{if and true 1 `hi` | not}}TRUE{{else}}FALSE{{end}}', 'FALSE'],
  ['{{index .SI 10}}', null],
  ['{{index .SI `hello`}}', null],
  ['{{index .SI nil}}', null],
  ['{{index .SMSI 1 `eleven`}}', '11'],
  ['{{index nil 1}}', null],
  ['{{len .SI}}', '3'],
  ['{{len 3}}', null],
  ['{{len .Empty0}}', null],
  ['{{with .SI}}{{.}}{{else}}EMPTY{{end}}', '[3 4 5]'],
  ['{{with .MSIone}}{{.}}{{else}}EMPTY{{end}}', 'map[one:1]'],
  ['{{with $x := $}}{{$y := $.U.V}}{{$y}}{{end}}', 'v'],
  ['{{range .MSI}}-{{.}}-{{end}}', '-1--3--2-'],
  ['{{range .Empty0}}-{{.}}-{{end}}', ''],
  ['{{range .Empty3}}-{{.}}-{{else}}EMPTY{{end}}', '-7--8-'],
  ['{{range $x, $y := .MSIone}}<{{$x}}={{$y}}>{{end}}', '<one=1>'],
  ['{{range $x := .PSI}}<{{$foo:=$x}}{{$x}}>{{end}}', '<21><22><23>'],
  ['{{or .SI "slice is empty"}}', '[3 4 5]'],
  ['{{or .SIEmpty "slice is empty"}}', 'slice is empty'],
  ['{{3 2}}', null],
  ['{{$x := 1}}{{$x 2}}', null],
  ['{{$x := 1}}{{3 | $x}}', null],
  ['{{3|oneArg}}', null],
  ['{{printf `%T` 0xef}}', 'int'],
  ['{{(nil).True}}', null],
  ['{{$x := nil}}{{$x.anything}}', null],
  ['{{true|printf}}', null],
  ['{{"aaa" |twoArgs "bbb"}}', 'twoArgs=bbbaaa'],
  ['{{"aaa"|oneArg}}', 'oneArg=aaa'],
  ['{{"aaa"|printf }}', 'aaa'],
];

describe('template engine: cases ported from Go exec_test.go', () => {
  for (const [text, want] of GO_CASES) {
    it(text, () => {
      const run = () => parseTemplate(text, { name: 't', funcs: GO_FUNCS }).execute(T_VAL);
      if (want === null) assert.throws(run, TemplateError);
      else assert.equal(run(), want);
    });
  }
});

/** Go's `text/template/parse/parse_test.go` `errorTests`: name, text, and what the error must contain. */
const GO_PARSE_ERRORS: [string, string, string][] = [
  ['unclosed1', 'line1\n{{', 'unclosed1:2: unclosed action'],
  ['unclosed2', 'line1\n{{define `x`}}line2\n{{', 'unclosed2:3: unclosed action'],
  ['unclosed3', 'line1\n{{"x"\n"y"\n', 'unclosed3:4: unclosed action started at unclosed3:2'],
  ['unclosed4', '{{\n\n\n\n\n', 'unclosed4:6: unclosed action started at unclosed4:1'],
  ['var1', 'line1\n{{\nx\n}}', 'var1:3: function "x" not defined'],
  ['function', '{{foo}}', 'function "foo" not defined'],
  ['comment1', '{{/*}}', 'comment1:1: unclosed comment'],
  ['comment2', '{{/*\nhello\n}}', 'comment2:1: unclosed comment'],
  ['lparen', '{{.X (1 2 3}}', 'unclosed left paren'],
  ['rparen', '{{.X 1 2 3 ) }}', 'unexpected right paren'],
  ['rparen2', '{{(.X 1 2 3', 'unclosed action'],
  ['space', '{{`x`3}}', 'in operand'],
  ['idchar', '{{a#}}', "'#'"],
  ['charconst', "{{'a}}", 'unterminated character constant'],
  ['stringconst', '{{"a}}', 'unterminated quoted string'],
  ['rawstringconst', '{{`a}}', 'unterminated raw quoted string'],
  ['number', '{{0xi}}', 'number syntax'],
  ['multidefine', '{{define `a`}}a{{end}}{{define `a`}}b{{end}}', 'multiple definition of template'],
  ['eof', '{{range .X}}', 'unexpected EOF'],
  ['variable', '{{$x := 23}}{{with $x.y := 3}}{{$x 23}}{{end}}', 'unexpected ":="'],
  ['multidecl', '{{$a,$b,$c := 23}}', 'too many declarations'],
  ['undefvar', '{{$a}}', 'undefined variable'],
  ['wrongdot', '{{true.any}}', 'unexpected . after term'],
  ['wrongpipeline', '{{12|false}}', 'non executable command in pipeline'],
  ['emptypipeline', '{{ ( ) }}', 'missing value for parenthesized pipeline'],
  ['multilinerawstring', '{{ $v := `\n` }} {{', 'multilinerawstring:2: unclosed action'],
  ['rangeundefvar', '{{range $k}}{{end}}', 'undefined variable'],
  ['rangeundefvars', '{{range $k, $v}}{{end}}', 'undefined variable'],
  ['rangemissingvalue1', '{{range $k,}}{{end}}', 'missing value for range'],
  ['rangemissingvalue2', '{{range $k, $v := }}{{end}}', 'missing value for range'],
  ['rangenotvariable1', '{{range $k, .}}{{end}}', 'range can only initialize variables'],
  ['rangenotvariable2', '{{range $k, 123 := .}}{{end}}', 'range can only initialize variables'],
];

describe('template engine: parse errors ported from Go parse_test.go', () => {
  for (const [name, text, want] of GO_PARSE_ERRORS) {
    it(name, () =>
      assert.throws(
        () => parseTemplate(text, { name }),
        (e: unknown) => e instanceof TemplateError && e.message.includes(want),
      ),
    );
  }
});
