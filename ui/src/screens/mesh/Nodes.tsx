/** Discovery nodes (`GET /v1/catalog/nodes`), live through blocking queries. */
import { useBlocking } from '../../api/useBlocking';
import { ErrorNotice, Loading } from '../../components/Notice';
import { MeshNav } from './MeshNav';

interface CatalogNode {
  ID: string;
  Node: string;
  Address: string;
  Datacenter: string;
}

export function MeshNodes() {
  const q = useBlocking<CatalogNode[]>('/v1/catalog/nodes');
  return (
    <>
      <MeshNav />
      <h1>Nodes</h1>
      <ErrorNotice error={q.error} />
      {!q.data && <Loading />}
      {q.data && (
        <table data-testid="mesh-nodes">
          <thead>
            <tr>
              <th scope="col">Node</th>
              <th scope="col">Address</th>
              <th scope="col">Datacenter</th>
            </tr>
          </thead>
          <tbody>
            {q.data.map((n) => (
              <tr key={n.Node}>
                <td>{n.Node}</td>
                <td>{n.Address}</td>
                <td>{n.Datacenter}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
