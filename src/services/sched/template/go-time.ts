/**
 * Go's `time.Format` of a UTC time, for the template function `timestamp "<layout>"`: the
 * layout is an example of Go's reference time `Mon Jan 2 15:04:05 MST 2006` (`2006-01-02`,
 * `15:04:05.000`, `Z07:00`). Zones print as UTC (`Z`, `+00:00`, `UTC`), as consul-template's
 * clock is UTC.
 *
 * @module
 */

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Layout elements, longest first where one is a prefix of another (Go's `nextStdChunk` order). */
const CHUNK =
  /January|Jan|Monday|Mon|MST|2006|002|__2|_2|06|01|02|03|04|05|15|1|2|3|4|5|PM|pm|Z07:00:00|Z070000|Z07:00|Z0700|Z07|-07:00:00|-070000|-07:00|-0700|-07|[.,](?:0+|9+)(?!\d)/g;

const p2 = (n: number): string => String(n).padStart(2, '0');

/** `t` (UTC) formatted with Go layout `layout` (module doc). */
export function formatGoTime(t: Date, layout: string): string {
  const h = t.getUTCHours();
  const ms = t.getUTCMilliseconds();
  const yday = Math.floor((Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate()) - Date.UTC(t.getUTCFullYear(), 0, 1)) / 86_400_000) + 1;
  return layout.replace(CHUNK, (c) => {
    switch (c) {
      case 'January':
        return MONTHS[t.getUTCMonth()]!;
      case 'Jan':
        return MONTHS[t.getUTCMonth()]!.slice(0, 3);
      case 'Monday':
        return DAYS[t.getUTCDay()]!;
      case 'Mon':
        return DAYS[t.getUTCDay()]!.slice(0, 3);
      case 'MST':
        return 'UTC';
      case '2006':
        return String(t.getUTCFullYear()).padStart(4, '0');
      case '06':
        return p2(t.getUTCFullYear() % 100);
      case '002':
        return String(yday).padStart(3, '0');
      case '__2':
        return String(yday).padStart(3, ' ');
      case '_2':
        return String(t.getUTCDate()).padStart(2, ' ');
      case '01':
        return p2(t.getUTCMonth() + 1);
      case '1':
        return String(t.getUTCMonth() + 1);
      case '02':
        return p2(t.getUTCDate());
      case '2':
        return String(t.getUTCDate());
      case '15':
        return p2(h);
      case '03':
        return p2(h % 12 || 12);
      case '3':
        return String(h % 12 || 12);
      case '04':
        return p2(t.getUTCMinutes());
      case '4':
        return String(t.getUTCMinutes());
      case '05':
        return p2(t.getUTCSeconds());
      case '5':
        return String(t.getUTCSeconds());
      case 'PM':
        return h >= 12 ? 'PM' : 'AM';
      case 'pm':
        return h >= 12 ? 'pm' : 'am';
      default:
        break;
    }
    if (c.startsWith('Z')) return 'Z';
    if (c.startsWith('-')) return c.replace(/\d/g, '0').replace('-', '+');
    // Fractional seconds: `.000` always that many digits, `.999` without trailing zeros (milliseconds here).
    const digits = c.length - 1;
    const frac = String(ms).padStart(3, '0').padEnd(digits, '0').slice(0, digits);
    if (c[1] === '0') return c[0] + frac;
    const trimmed = frac.replace(/0+$/, '');
    return trimmed === '' ? '' : c[0] + trimmed;
  });
}
