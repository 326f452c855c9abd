/** The secrets section's sub-navigation. */
import { NavLink } from 'react-router';

export function SecretsNav() {
  return (
    <nav aria-label="Secrets" className="sub">
      <NavLink to="/secrets" end>
        Engines
      </NavLink>
      <NavLink to="/secrets/policies">Policies</NavLink>
      <NavLink to="/secrets/auth">Auth methods</NavLink>
      <NavLink to="/secrets/tokens">Tokens</NavLink>
      <NavLink to="/secrets/seal">Seal status</NavLink>
      <NavLink to="/secrets/ha">HA status</NavLink>
      <NavLink to="/secrets/leases">Leases</NavLink>
      <NavLink to="/secrets/wrapping">Wrapping</NavLink>
      <NavLink to="/secrets/audit">Audit devices</NavLink>
    </nav>
  );
}
