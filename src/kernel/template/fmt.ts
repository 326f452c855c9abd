/**
 * Go's `fmt.Sprint`, `Sprintln` and `Sprintf` for the template builtins `print`, `println`
 * and `printf`: the verbs `%v %s %d %q %x %X %o %b %c %U %e %E %f %F %g %G %t %T %%`, flags
 * `+ - # 0 space`, width and precision (`*` too), and Go's in-band errors (`%!d(string=x)`,
 * `%!s(MISSING)`, `%!(EXTRA int=1)`). Widths and precisions above 1e6 are Go's
 * `%!(BADWIDTH)` / `%!(BADPREC)`, which bounds what one verb can produce.
 *
 * @module
 */
import { quoteGo } from './quote.js';
import { formatFloat, formatValue, typeName, type Value } from './values.js';

const TOO_LARGE = 1e6;

/** `fmt.Sprint`: operands formatted with `%v`, a space between two operands when neither is a string. */
export function sprint(args: readonly Value[]): string {
  let out = '';
  let prevString = false;
  for (const [i, a] of args.entries()) {
    const isString = typeof a === 'string';
    if (i > 0 && !isString && !prevString) out += ' ';
    out += formatValue(a ?? null);
    prevString = isString;
  }
  return out;
}

/** `fmt.Sprintln`: operands with `%v`, always a space between, a newline at the end. */
export function sprintln(args: readonly Value[]): string {
  return `${args.map((a) => formatValue(a ?? null)).join(' ')}\n`;
}

interface Spec {
  minus: boolean;
  plus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  width: number | undefined;
  prec: number | undefined;
}

const bad = (verb: string, v: Value): string => (v === null || v === undefined ? `%!${verb}(<nil>)` : `%!${verb}(${typeName(v)}=${formatValue(v)})`);

function pad(s: string, spec: Spec, numeric: boolean): string {
  const len = [...s].length;
  if (spec.width === undefined || len >= spec.width) return s;
  const fill = spec.width - len;
  if (spec.minus) return s + ' '.repeat(fill);
  if (spec.zero && numeric) {
    const sign = /^[+\- ]/.test(s) ? s[0]! : '';
    return sign + '0'.repeat(fill) + s.slice(sign.length);
  }
  return ' '.repeat(fill) + s;
}

function signed(s: string, n: number, spec: Spec): string {
  if (n < 0 || Object.is(n, -0)) return s;
  return spec.plus ? `+${s}` : spec.space ? ` ${s}` : s;
}

function formatInt(n: number, verb: string, spec: Spec): string {
  const abs = Math.abs(n);
  let digits: string;
  switch (verb) {
    case 'd':
    case 'v':
      digits = String(abs);
      break;
    case 'x':
      digits = (spec.sharp ? '0x' : '') + abs.toString(16);
      break;
    case 'X':
      digits = (spec.sharp ? '0X' : '') + abs.toString(16).toUpperCase();
      break;
    case 'o':
      digits = (spec.sharp ? '0' : '') + abs.toString(8);
      break;
    case 'b':
      digits = abs.toString(2);
      break;
    default:
      return bad(verb, n);
  }
  if (spec.prec !== undefined) digits = digits.padStart(spec.prec, '0');
  return signed(n < 0 ? `-${digits}` : digits, n, spec);
}

function expo(s: string): string {
  return s.replace(/e([+-])(\d)$/, 'e$10$2');
}

function formatFloatVerb(f: number, verb: string, spec: Spec): string {
  if (!Number.isFinite(f)) return signed(formatFloat(f), f, spec);
  let s: string;
  switch (verb) {
    case 'e':
    case 'E':
      s = expo(f.toExponential(spec.prec ?? 6));
      break;
    case 'f':
    case 'F':
      s = f.toFixed(Math.min(spec.prec ?? 6, 100));
      break;
    case 'g':
    case 'G':
    case 'v':
      if (spec.prec === undefined) s = formatFloat(f);
      else {
        const p = Math.max(spec.prec, 1);
        const exp = f === 0 ? 0 : Math.floor(Math.log10(Math.abs(f)));
        s =
          exp < -4 || exp >= p
            ? expo(
                f
                  .toExponential(p - 1)
                  .replace(/\.?0+e/, 'e')
                  .replace(/\.e/, 'e'),
              )
            : String(Number(f.toPrecision(p)));
      }
      break;
    default:
      return bad(verb, f);
  }
  if (verb === 'E' || verb === 'G') s = s.toUpperCase();
  return signed(s, f, spec);
}

function hexString(s: string, upper: boolean, sharp: boolean): string {
  const hex = Buffer.from(s, 'utf8').toString('hex');
  const out = sharp ? `0x${hex}` : hex;
  return upper ? out.toUpperCase().replace(/^0X/, '0X') : out;
}

function formatOne(verb: string, v: Value, spec: Spec): string {
  if (verb === 'T') return pad(v === null || v === undefined ? '<nil>' : typeName(v), spec, false);
  if (verb === 'v') {
    if (typeof v === 'number') return pad(Number.isInteger(v) ? formatInt(v, 'd', spec) : formatFloatVerb(v, 'g', spec), spec, true);
    return pad(formatValue(v ?? null), spec, false);
  }
  if (typeof v === 'string') {
    switch (verb) {
      case 's':
        return pad(spec.prec === undefined ? v : [...v].slice(0, spec.prec).join(''), spec, false);
      case 'q':
        return pad(spec.sharp && !v.includes('`') ? `\`${v}\`` : quoteGo(v), spec, false);
      case 'x':
      case 'X':
        return pad(hexString(v, verb === 'X', spec.sharp), spec, false);
      default:
        return bad(verb, v);
    }
  }
  if (typeof v === 'number') {
    if (Number.isInteger(v)) {
      if (verb === 'c') return pad(String.fromCodePoint(v), spec, false);
      if (verb === 'q') return pad(quoteGo(String.fromCodePoint(v), "'"), spec, false);
      if (verb === 'U') return pad(`U+${v.toString(16).toUpperCase().padStart(4, '0')}`, spec, false);
      if ('eEfFgG'.includes(verb)) return pad(formatFloatVerb(v, verb, spec), spec, true);
      return pad(formatInt(v, verb, spec), spec, true);
    }
    return pad(formatFloatVerb(v, verb, spec), spec, true);
  }
  if (typeof v === 'boolean') return verb === 't' ? pad(String(v), spec, false) : bad(verb, v);
  if (Array.isArray(v) && 'sdqxX'.includes(verb)) return `[${v.map((x) => formatOne(verb, x, { ...spec, width: undefined })).join(' ')}]`;
  if (verb === 's' && (v === null || v === undefined)) return '%!s(<nil>)';
  if (verb === 's') return pad(formatValue(v), spec, false);
  return bad(verb, v);
}

/** `fmt.Sprintf` (module doc). */
export function sprintf(format: string, args: readonly Value[]): string {
  let out = '';
  let argNum = 0;
  let i = 0;
  const readNum = (): number | undefined => {
    let n: number | undefined;
    while (i < format.length && format[i]! >= '0' && format[i]! <= '9') {
      n = (n ?? 0) * 10 + Number(format[i]);
      if (n > TOO_LARGE * 10) n = TOO_LARGE * 10;
      i++;
    }
    return n;
  };
  while (i < format.length) {
    const c = format[i]!;
    if (c !== '%') {
      const next = format.indexOf('%', i);
      const end = next < 0 ? format.length : next;
      out += format.slice(i, end);
      i = end;
      continue;
    }
    i++;
    const spec: Spec = { minus: false, plus: false, sharp: false, space: false, zero: false, width: undefined, prec: undefined };
    for (; i < format.length; i++) {
      const f = format[i];
      if (f === '-') spec.minus = true;
      else if (f === '+') spec.plus = true;
      else if (f === '#') spec.sharp = true;
      else if (f === ' ') spec.space = true;
      else if (f === '0') spec.zero = !spec.minus;
      else break;
    }
    if (format[i] === '*') {
      i++;
      const w = args[argNum++];
      if (typeof w === 'number' && Number.isInteger(w) && Math.abs(w) <= TOO_LARGE) {
        spec.width = Math.abs(w);
        if (w < 0) spec.minus = true;
      } else out += '%!(BADWIDTH)';
    } else spec.width = readNum();
    if (format[i] === '.') {
      i++;
      if (format[i] === '*') {
        i++;
        const p = args[argNum++];
        if (typeof p === 'number' && Number.isInteger(p) && p >= 0 && p <= TOO_LARGE) spec.prec = p;
        else out += '%!(BADPREC)';
      } else spec.prec = readNum() ?? 0;
    }
    if ((spec.width ?? 0) > TOO_LARGE) {
      out += '%!(BADWIDTH)';
      spec.width = undefined;
    }
    if ((spec.prec ?? 0) > TOO_LARGE) {
      out += '%!(BADPREC)';
      spec.prec = undefined;
    }
    const verb = format[i];
    if (verb === undefined) {
      out += '%!(NOVERB)';
      break;
    }
    i++;
    if (verb === '%') {
      out += '%';
      continue;
    }
    if (argNum >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    out += formatOne(verb, args[argNum++], spec);
  }
  if (argNum < args.length)
    out += `%!(EXTRA ${args
      .slice(argNum)
      .map((a) => `${a === null || a === undefined ? '<nil>' : typeName(a)}=${formatValue(a ?? null)}`)
      .join(', ')})`;
  return out;
}
