/** The frame of every screen after login: sections, namespace, theme, logout. */
import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { NavLink, Outlet, useNavigate } from 'react-router';
import type { Section } from '../api/client';
import { clearSession, saveSession, type Session } from '../api/session';
import { applyTheme, storedTheme } from './theme';

const SECTION_LINKS: Array<[Section, string, string]> = [
  ['secrets', '/secrets', 'Secrets'],
  ['mesh', '/discovery', 'Discovery'],
  ['sched', '/scheduler', 'Scheduler'],
  ['gateway', '/gateway', 'Gateway'],
];

export function Layout({ session, sections }: { session: Session; sections: Partial<Record<Section, string>> }) {
  const queries = useQueryClient();
  const navigate = useNavigate();
  const [theme, setTheme] = useState(storedTheme);
  const logout = () => {
    queries.clear();
    clearSession();
    navigate('/login', { replace: true });
  };
  const toggleTheme = () => {
    const next = theme === 'dark' ? 'light' : 'dark';
    applyTheme(next);
    setTheme(next);
  };
  return (
    <>
      <header className="top">
        <span className="brand">Cairn</span>
        <nav aria-label="Services">
          {SECTION_LINKS.filter(([s]) => sections[s] !== undefined).map(([, to, label]) => (
            <NavLink key={to} to={to}>
              {label}
            </NavLink>
          ))}
        </nav>
        {sections.secrets !== undefined && <NamespaceSwitcher session={session} onChange={() => queries.clear()} />}
        <span className="who">{session.via}</span>
        <button type="button" onClick={toggleTheme} aria-label={`Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`}>
          {theme === 'dark' ? 'Light' : 'Dark'} theme
        </button>
        <button type="button" onClick={logout}>
          Log out
        </button>
      </header>
      <main>
        <Outlet />
      </main>
    </>
  );
}

/** The secrets namespace the tab works in ('' = root); changing it drops every cached reply. */
function NamespaceSwitcher({ session, onChange }: { session: Session; onChange: () => void }) {
  const [value, setValue] = useState(session.namespace);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const ns = value.trim().replace(/^\/+|\/+$/g, '');
    saveSession({ ...session, namespace: ns ? `${ns}/` : '' });
    onChange();
  };
  return (
    <form className="ns" onSubmit={submit}>
      <label htmlFor="ns">Namespace</label>
      <input id="ns" value={value} placeholder="root" onChange={(e) => setValue(e.target.value)} size={12} />
      <button type="submit" aria-label="Switch namespace">Switch</button>
    </form>
  );
}
