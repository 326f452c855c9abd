/** The discovery section's sub-navigation. */
import { NavLink } from 'react-router';

export function MeshNav() {
  return (
    <nav aria-label="Discovery" className="sub">
      <NavLink to="/discovery" end>
        Services
      </NavLink>
      <NavLink to="/discovery/nodes">Nodes</NavLink>
      <NavLink to="/discovery/kv/">Key/value</NavLink>
      <NavLink to="/discovery/acl/tokens">ACL</NavLink>
    </nav>
  );
}
