/** Discovery nodes (`GET /v1/catalog/nodes`), live through blocking queries. */
import { useBlocking } from '../../api/useBlocking';
import { DataTable } from '../../components/DataTable';
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
        <DataTable
          testId="mesh-nodes"
          rows={q.data}
          rowKey={(n) => n.Node}
          columns={[
            ['Node', (n) => n.Node],
            ['Address', (n) => n.Address],
            ['Datacenter', (n) => n.Datacenter],
          ]}
        />
      )}
    </>
  );
}
