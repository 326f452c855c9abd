/** Light and dark themes: the system's choice unless the user picked one (kept in localStorage; not a secret). */
export type Theme = 'light' | 'dark';
const KEY = 'cairn.theme';

/** The user's pick, else the system's preference. */
export function storedTheme(): Theme {
  const t = localStorage.getItem(KEY);
  if (t === 'light' || t === 'dark') return t;
  return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/** Applies `t` to the page (`data-theme` on <html>) and remembers it. */
export function applyTheme(t: Theme): void {
  document.documentElement.dataset.theme = t;
  localStorage.setItem(KEY, t);
}
