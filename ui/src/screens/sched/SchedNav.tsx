/** The scheduler section's sub-navigation. */
import { NavLink } from 'react-router';

export function SchedNav() {
  return (
    <nav aria-label="Scheduler" className="sub">
      <NavLink to="/scheduler" end>
        Events
      </NavLink>
      <NavLink to="/scheduler/jobs">Jobs</NavLink>
      <NavLink to="/scheduler/nodes">Nodes</NavLink>
      <NavLink to="/scheduler/topology">Topology</NavLink>
      <NavLink to="/scheduler/allocations">Allocations</NavLink>
      <NavLink to="/scheduler/plugins">CSI plugins</NavLink>
      <NavLink to="/scheduler/volumes">CSI volumes</NavLink>
      <NavLink to="/scheduler/acl/tokens">ACL</NavLink>
    </nav>
  );
}
