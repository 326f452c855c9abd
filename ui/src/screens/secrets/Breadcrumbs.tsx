/** Where in a KV mount the user is: the mount, then each folder, as links. */
import { Link } from 'react-router';
import { kvRoute } from './kvPaths';

export function Breadcrumbs({ mount, path }: { mount: string; path: string }) {
  const parts = path.split('/').filter(Boolean);
  return (
    <nav aria-label="Breadcrumb" className="crumbs">
      <h1>
        <Link to={kvRoute(mount, '')}>{mount}</Link>
        {parts.map((p, i) => {
          const isLast = i === parts.length - 1;
          const to = parts.slice(0, i + 1).join('/') + (isLast && !path.endsWith('/') ? '' : '/');
          return (
            <span key={to}>
              {' / '}
              {isLast ? <span aria-current="page">{p}</span> : <Link to={kvRoute(mount, to)}>{p}</Link>}
            </span>
          );
        })}
      </h1>
    </nav>
  );
}
