/** The frame of every screen after login: sections, namespace (SectionNamespace.tsx), theme, logout. */
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import type { Section } from '../api/client';
import { clearSession, type Session } from '../api/session';
import { SectionNamespace } from './SectionNamespace';
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
  const { pathname } = useLocation();
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
          <NavLink to="/overview">Overview</NavLink>
          {SECTION_LINKS.filter(([s]) => sections[s] !== undefined).map(([, to, label]) => (
            <NavLink key={to} to={to}>
              {label}
            </NavLink>
          ))}
        </nav>
        <SectionNamespace session={session} sections={sections} pathname={pathname} />
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
