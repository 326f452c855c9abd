// Expressions × inputs × results, following go-bexpr v0.1.x (reference/sched.md §1.8).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkSelectors, compileFilter, FilterError } from './index.js';

// A Nomad node as JSON (Go field names) and a binding-rule identity (nested maps).
const node = {
  Name: 'web-1',
  Schedulable: true,
  Status: 'ready',
  Count: 3,
  Ratio: 0.5,
  Meta: { env: 'prod', 'rack-id': 'r1', 'a/b': 'slash', 'x~y': 'tilde', empty: '' },
  Tags: ['gpu', 'ssd'],
  Ports: [80, 443],
  Flags: [true],
  Mixed: ['a', 1, true, null],
  Drivers: {},
  Nothing: null,
  Links: [{ Name: 'l0' }],
  Text: 'line "one"\nline two',
};
const identity = {
  value: { sub: 'abc', email: 'Dev@Example.com' },
  list: { groups: ['engineering', 'admins'] },
  serviceaccount: { namespace: 'default', name: 'web', uid: 'u-1' },
};

const cases: [expression: string, datum: unknown, expected: boolean][] = [
  // == and != on strings, bare words, both quote styles; case-sensitive
  ['Name == "web-1"', node, true],
  ['Name=="web-1"', node, true],
  ['Name == `web-1`', node, true],
  ['Name == "WEB-1"', node, false],
  ['Name != "web-1"', node, false],
  ['Status == ready', node, true],
  ['Status != ready', node, false],
  ['Meta.env == prod', node, true],
  // bools: Go's ParseBool spellings
  ['Schedulable == true', node, true],
  ['Schedulable == True', node, true],
  ['Schedulable == 1', node, true],
  ['Schedulable == "t"', node, true],
  ['Schedulable != false', node, true],
  // numbers: the literal is coerced to the field's kind
  ['Count == 3', node, true],
  ['Count == "3"', node, true],
  ['Count == 3.0', node, true],
  ['Count == "0x3"', node, true],
  ['Count == "03"', node, true], // ParseInt base 0: leading 0 is octal
  ['Count == -3', node, false],
  ['Count != 4', node, true],
  ['Ratio == 0.5', node, true],
  ['Ratio == "5e-1"', node, true],
  ['Ratio == 0.50', node, true],
  // in / contains / not in / not contains: slices, maps (keys), strings (substrings)
  ['"gpu" in Tags', node, true],
  ['gpu in Tags', node, true],
  ['"cpu" in Tags', node, false],
  ['"cpu" not in Tags', node, true],
  ['Tags contains "ssd"', node, true],
  ['Tags not contains "ssd"', node, false],
  ['443 in Ports', node, true],
  ['"443" in Ports', node, true],
  ['8080 in Ports', node, false],
  ['"x" in Ports', node, false], // elements the literal cannot be read as are skipped
  ['true in Flags', node, true],
  ['1 in Mixed', node, true],
  ['true in Mixed', node, true], // "true" is not a number: skipped for 1, equal to true
  ['"env" in Meta', node, true],
  ['"prod" in Meta', node, false],
  ['Meta contains "rack-id"', node, true],
  ['"web" in Name', node, true],
  ['Name contains "eb-"', node, true],
  ['Name not contains "db"', node, true],
  ['"x" in Nothing', node, false],
  // is empty / is not empty / is nil / is not nil
  ['Drivers is empty', node, true],
  ['Meta is empty', node, false],
  ['Meta is not empty', node, true],
  ['Tags is not empty', node, true],
  ['Meta.empty is empty', node, true],
  ['Nothing is empty', node, true],
  ['Nothing is nil', node, true],
  ['Name is nil', node, false],
  ['Name is not nil', node, true],
  // matches / not matches: RE2, unanchored
  ['Meta.env matches "^p"', node, true],
  ['Name matches "eb"', node, true],
  ['Name matches "^eb"', node, false],
  ['Name not matches "^db-"', node, true],
  ['Name matches "(?i)WEB"', node, true],
  ['Name matches `^[[:alpha:]]+-\\d$`', node, true],
  ['Text matches "two$"', node, true],
  // missing map keys: not an error, result by operator
  ['Meta.missing == x', node, false],
  ['Meta.missing != x', node, true],
  ['"x" in Meta.missing', node, false],
  ['"x" not in Meta.missing', node, true],
  ['Meta.missing is empty', node, true],
  ['Meta.missing is not empty', node, false],
  ['Meta.missing matches "."', node, false],
  ['Meta.missing not matches "."', node, true],
  ['Meta.missing is nil', node, true],
  ['Meta.missing is not nil', node, false],
  // selectors: map indexing, slice indexes, JSON pointers (with ~1 and ~0 escapes)
  ['Meta["rack-id"] == r1', node, true],
  ['Meta[ "rack-id" ] == `r1`', node, true],
  ['Meta["a/b"] == slash', node, true],
  ['Tags.0 == gpu', node, true],
  ['Tags.1 == ssd', node, true],
  ['Links.0.Name == l0', node, true],
  ['"/Meta/env" == prod', node, true],
  ['"/Meta/a~1b" == slash', node, true],
  ['"/Meta/x~0y" == tilde', node, true],
  ['"/Tags/1" == ssd', node, true],
  ['Name == "/web-1"', node, false], // a quoted value is a string, never a pointer
  // escaping in double-quoted strings (Go escapes), raw backquoted strings
  ['Text contains "line two"', node, true],
  ['Text contains `"one"`', node, true],
  ['Text contains "\\x6c\\u0069\\156e"', node, true], // "line"
  ['Text matches "\\n"', node, true],
  // and / or / not, precedence, parentheses
  ['Name == "web-1" and Schedulable == true', node, true],
  ['Name == "x" or Count == 3', node, true],
  ['Name == "x" or Count == 3 and Status == "down"', node, false], // and binds tighter
  ['(Name == "x" or Count == 3) and Status == ready', node, true],
  ['not Name == "x"', node, true],
  ['not not Name == "web-1"', node, true],
  ['not (Name == "y" or Status != ready)', node, true],
  ['not Name == "x" and Count == 4', node, false], // not binds tightest
  ['( Name == "web-1" )', node, true],
  ['  Name == "web-1"  ', node, true],
  ['Name == "x" or\n\tCount == 3', node, true],
  ['Name == "x" and Nope == 1', node, false], // short-circuit: the bad right side is not evaluated
  ['Name == "web-1" or Nope == 1', node, true],
  // collections
  ['all Tags as t { t != "cpu" }', node, true],
  ['any Tags as t { t == "ssd" }', node, true],
  ['all Tags as t { t == "ssd" }', node, false],
  ['any Meta as k { k == "env" }', node, true],
  ['all Meta as _, v { v != "x" }', node, true],
  ['any Meta as k, v { k == "env" and v == prod }', node, true],
  ['any Tags as i, _ { i == 1 }', node, true],
  ['any Links as l { l.Name == l0 }', node, true],
  ['all Drivers as k { k == x }', node, true],
  ['any Meta.missing as k { k == x }', node, false],
  ['all Meta.missing as k { k == x }', node, true],
  // binding-rule identities: nested maps of the reference's field names
  ['value.sub == "abc"', identity, true],
  ['value.sub == abc', identity, true],
  ['value.email == "dev@example.com"', identity, false],
  ['"admins" in list.groups', identity, true],
  ['engineering in list.groups', identity, true],
  ['"ops" in list.groups', identity, false],
  ['"x" in list.missing', identity, false],
  ['value.missing == ""', identity, false],
  ['serviceaccount.namespace==default and serviceaccount.name!=vault', identity, true],
  ['serviceaccount.name == web', identity, true],
];

describe('matches', () => {
  for (const [expression, datum, expected] of cases) {
    test(`${expression} → ${expected}`, () => {
      assert.equal(compileFilter(expression).matches(datum), expected);
    });
  }
});

const syntaxErrors: [expression: string, message: RegExp, line: number, column: number][] = [
  ['Name = "x"', /^1:6: Expected "!=", "==", "contains", "in", "is", "matches", or "not" but "=" found\.$/, 1, 6],
  ['', /^1:1: Expected .* but end of input found\.$/, 1, 1],
  ['Name ==', /^1:8: Expected /, 1, 8],
  ['Name == x and', /^1:14: Expected whitespace/, 1, 14],
  ['not(Name == x)', /^1:4: Expected /, 1, 4],
  ['Name == x AND Count == 3', /^1:11: Expected /, 1, 11], // keywords are lowercase
  ['(Name == x', /^1:11: Unmatched parentheses$/, 1, 11],
  ['Count == 1x', /^1:11: Invalid number literal$/, 1, 11],
  ['Count == 01', /^1:11: Invalid number literal$/, 1, 11],
  ['Count == 0x3', /^1:11: Invalid number literal$/, 1, 11],
  ['Name == "ab', /^1:12: Unterminated string literal$/, 1, 12],
  ['Name == `ab', /^1:12: Unterminated string literal$/, 1, 12],
  ['a[b] == 1', /^1:3: Invalid index$/, 1, 3],
  ['a["b" == 1', /^1:7: Unclosed index expression$/, 1, 7],
  ['x in 1', /^1:6: Invalid selector$/, 1, 6],
  ['a == "\\q"', /^1:6: Invalid string literal "\\q": invalid syntax$/, 1, 6],
  ['a == "\\"', /^1:6: Invalid string literal "\\": invalid syntax$/, 1, 6],
  // `"` ends a double-quoted literal even after a backslash, as in the reference grammar
  ['Text == "line \\"one\\""', /^1:9: Invalid string literal "line \\": invalid syntax$/, 1, 9],
  ['a == "x\ny"', /^1:6: Invalid string literal/, 1, 6],
  ['Name == x\nand Count = 3', /^2:11: Expected /, 2, 11],
];

describe('syntax errors', () => {
  for (const [expression, message, line, column] of syntaxErrors) {
    test(JSON.stringify(expression), () => {
      assert.throws(
        () => compileFilter(expression),
        (e: unknown) => {
          assert.ok(e instanceof FilterError);
          assert.equal(e.kind, 'syntax');
          assert.match(e.message, message);
          assert.equal(e.line, line);
          assert.equal(e.column, column);
          return true;
        },
      );
    });
  }
});

const evaluationErrors: [expression: string, datum: unknown, message: RegExp][] = [
  ['Nope == 1', node, /^error finding value in datum: \/Nope: at part 0, couldn't find key "Nope"$/],
  ['name == "web-1"', node, /couldn't find key "name"/], // field names are case-sensitive
  ['Meta.missing.deeper == 1', node, /at part 1, couldn't find key "missing"/],
  ['Tags.5 == x', node, /index 5 is out of range \(length = 2\)/],
  ['Tags.x == x', node, /couldn't parse index "x"/],
  ['Name.First == x', node, /at part 1, invalid value kind: string/],
  ['Tags == gpu', node, /unable to find suitable primitive comparison function for matching/],
  ['Meta != x', node, /unable to find suitable primitive comparison function for matching/],
  ['Nothing == x', node, /unable to find suitable primitive comparison function for matching/],
  ['Count == abc', node, /strconv\.ParseFloat: parsing "abc": invalid syntax/],
  ['Schedulable == yes', node, /strconv\.ParseBool: parsing "yes": invalid syntax/],
  ['"x" in Count', node, /Cannot perform in\/contains operations on type number for selector: "Count"/],
  ['"x" in Links', node, /"in" comparison in interface slice: map/],
  ['Count is empty', node, /Cannot check emptiness of type number/],
  ['Count matches "3"', node, /Value of type number is not convertible to \[\]byte/],
  ['Name matches "(a"', node, /Failed to compile regular expression "\(a": error parsing regexp: missing closing \)/],
  ['Name matches "(?=a)"', node, /invalid or unsupported Perl syntax/],
  ['any Name as c { c == w }', node, /Name is not a list or a map/],
  ['any Meta as k { k.x == 1 }', node, /\/k references a string so \/k\/x is invalid/],
  ['any Tags as t, t { t == 1 }', node, /"t" cannot be used as a placeholder for both the index and the value/],
  ['foo.bar == 1', identity, /couldn't find key "foo"/],
  ['x == 1', null, /at part 0, invalid value kind: nil/],
];

describe('evaluation errors', () => {
  for (const [expression, datum, message] of evaluationErrors) {
    test(expression, () => {
      const filter = compileFilter(expression); // compiles: the error comes on evaluation
      assert.throws(
        () => filter.matches(datum),
        (e: unknown) => {
          assert.ok(e instanceof FilterError);
          assert.equal(e.kind, 'evaluation');
          assert.match(e.message, message);
          return true;
        },
      );
    });
  }
  test('a bad regular expression is only an error when a string reaches it', () => {
    assert.equal(compileFilter('Name == x and Name matches "(a"').matches(node), false);
  });
});

describe('compileFilter', () => {
  test('an expression too deep for the parser is a syntax error, not a stack overflow', () => {
    for (const expression of ['('.repeat(100_000) + 'a == 1' + ')'.repeat(100_000), Array(100_000).fill('a == 1').join(' and ')]) {
      assert.throws(
        () => compileFilter(expression),
        (e: unknown) => e instanceof FilterError && e.kind === 'syntax',
      );
    }
  });
  test('unbalanced nesting fails once, without backtracking exponentially (the parser memoises)', () => {
    assert.throws(() => compileFilter('('.repeat(60) + 'a == '), { kind: 'syntax', column: 66 });
  });
  test('moderate nesting parses and evaluates', () => {
    const f = compileFilter('('.repeat(200) + 'Count == 3' + ')'.repeat(200) + ' and Count == 3'.repeat(200));
    assert.equal(f.matches(node), true);
  });

  test('keeps the source and evaluates many values', () => {
    const f = compileFilter('"admins" in list.groups');
    assert.equal(f.source, '"admins" in list.groups');
    assert.deepEqual(
      [identity, { value: {}, list: { groups: [] } }, { value: {}, list: {} }].map((v) => f.matches(v)),
      [true, false, false],
    );
  });
});

describe('checkSelectors', () => {
  const blankJwt = { value: {}, list: {} };
  const blankK8s = { serviceaccount: { namespace: '', name: '', uid: '' } };
  const ok: [string, unknown][] = [
    ['value.sub == abc and "a" in list.groups', blankJwt],
    ['value["any-claim"] == x', blankJwt],
    ['serviceaccount.namespace == default and serviceaccount.name != vault', blankK8s],
    ['"/serviceaccount/uid" is not empty', blankK8s],
    ['Tags.0 == x and Meta.env == prod and "a" in Drivers', { Tags: [], Meta: {}, Drivers: null }],
    ['any list.groups as g { g == admins }', blankJwt],
    ['all Links as l { l.Name == x }', { Links: [{ Name: '' }] }],
  ];
  for (const [expression, sample] of ok) {
    test(`accepts ${expression}`, () => checkSelectors(compileFilter(expression), sample));
  }
  const bad: [string, unknown, RegExp][] = [
    ['foo.bar == 1', blankJwt, /^Selector "foo\.bar" is not valid: unknown field "foo"$/],
    ['value.sub == x or Value.sub == x', blankJwt, /Selector "Value\.sub" is not valid: unknown field "Value"/],
    ['serviceaccount.nam == web', blankK8s, /Selector "serviceaccount\.nam" is not valid: unknown field "nam"/],
    ['serviceaccount.name.first == web', blankK8s, /"name" has no field "first"/],
    ['not (value.x == 1 and "a" in lists.groups)', blankJwt, /unknown field "lists"/],
    ['all Links as l { l.Name == x and Nope == 1 }', { Links: [] }, /unknown field "Nope"/],
  ];
  for (const [expression, sample, message] of bad) {
    test(`rejects ${expression}`, () => {
      assert.throws(
        () => checkSelectors(compileFilter(expression), sample),
        (e: unknown) => e instanceof FilterError && e.kind === 'evaluation' && message.test(e.message),
      );
    });
  }
});
