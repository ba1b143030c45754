import ELK, { type ElkNode } from 'elkjs/lib/elk-api.js';
import elkWorkerUrl from 'elkjs/lib/elk-worker.min.js?url';
import { CLIENTS, type NetworkGraph } from './networkGraph.js';

/** A laid-out node: its box, px. */
export interface NodeBox {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** Where a graph's nodes and edges go, px. */
export interface GraphLayout {
  readonly width: number;
  readonly height: number;
  /** By node index ({@link CLIENTS} for the clients). */
  readonly nodes: ReadonlyMap<number, NodeBox>;
  /** By edge id: the polyline from the source's border to the target's. */
  readonly edges: ReadonlyMap<string, readonly (readonly [number, number])[]>;
}

/** Height of a service's box, px (two lines: its name and its figures). */
const SERVICE_HEIGHT = 44;

/** A node's size, px: wide enough for its name and its figures line. */
function nodeSize(index: number, name: string): { width: number; height: number } {
  if (index === CLIENTS) return { width: 72, height: 30 };
  return { width: Math.max(118, 7.5 * name.length + 24), height: SERVICE_HEIGHT };
}

/** The ELK engine, in its own worker (its 1.6 MB load off the page's thread and first load). */
let engine: InstanceType<typeof ELK> | undefined;

/**
 * Lays a network's graph out with ELK's layered algorithm, left to right (clients first, then
 * each service after those that send it requests), edges as polylines. Done once per network:
 * the view moves nothing when a slider moves.
 */
export async function layoutGraph(graph: NetworkGraph): Promise<GraphLayout> {
  engine ??= new ELK({ workerFactory: () => new Worker(elkWorkerUrl) });
  const id = (index: number) => `n${index}`;
  const laidOut: ElkNode = await engine.layout({
    id: 'root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
      'elk.edgeRouting': 'POLYLINE',
      'elk.layered.spacing.nodeNodeBetweenLayers': '56',
      'elk.spacing.nodeNode': '18',
      'elk.spacing.edgeNode': '12',
      'elk.padding': '[top=8,left=8,bottom=8,right=8]',
    },
    children: graph.nodes.map((node) => ({
      id: id(node.index),
      ...nodeSize(node.index, node.name),
    })),
    edges: graph.edges.map((edge) => ({
      id: edge.id,
      sources: [id(edge.from)],
      targets: [id(edge.to)],
    })),
  });
  const nodes = new Map<number, NodeBox>();
  for (const node of graph.nodes) {
    const box = laidOut.children?.find((child) => child.id === id(node.index));
    nodes.set(node.index, {
      x: box?.x ?? 0,
      y: box?.y ?? 0,
      width: box?.width ?? 0,
      height: box?.height ?? 0,
    });
  }
  const edges = new Map<string, (readonly [number, number])[]>();
  for (const edge of laidOut.edges ?? []) {
    const section = edge.sections?.[0];
    if (section === undefined) continue;
    edges.set(edge.id, [
      [section.startPoint.x, section.startPoint.y],
      ...(section.bendPoints ?? []).map((p) => [p.x, p.y] as const),
      [section.endPoint.x, section.endPoint.y],
    ]);
  }
  return { width: laidOut.width ?? 0, height: laidOut.height ?? 0, nodes, edges };
}
