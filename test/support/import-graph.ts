/**
 * The import graph of the tree and the rules of its floors (docs/architecture.md, "Where code
 * lives"), for test/unit/kernel/import-graph.test.ts. Bottom to top:
 *
 *   kernel       src/ (but src/domain/)       imports only the kernel
 *   domain       src/domain/                  the kernel's pure modules (any kernel module for types) and other domains
 *   projections  projections/                 the kernel, the domain and other read models
 *   application  services/ commands/ queries/ processes/   everything below, and one another
 *   app          app/                         everything: the composition root (wiring, main, CLI)
 */

export interface Import {
  readonly specifier: string;
  /** The file the import names, from the tree's root; the package name for a package. */
  readonly target: string;
  readonly typeOnly: boolean;
  readonly relative: boolean;
}

export type Floor = 'kernel' | 'domain' | 'projections' | 'application' | 'app';

const RANK: Record<Floor, number> = { kernel: 0, domain: 1, projections: 2, application: 3, app: 4 };

export function floorOf(file: string): Floor | undefined {
  if (file.startsWith('src/domain/')) return 'domain';
  if (file.startsWith('src/')) return 'kernel';
  const top = file.split('/')[0];
  if (top === 'projections') return 'projections';
  if (top === 'services' || top === 'commands' || top === 'queries' || top === 'processes')
    return 'application';
  if (top === 'app') return 'app';
  return undefined;
}

/** Kernel modules without I/O, which the domain may use for values (any kernel module for types). */
const PURE_KERNEL = new Set([
  'src/stream.ts',
  'src/errors.ts',
  'src/ids.ts',
  'src/calendar.ts',
  'src/group-by.ts',
  'src/credits/prices.ts',
  'src/auth/scopes.ts',
  'src/content-api/article.ts',
  'src/content-api/mapping.ts',
  'src/http/pagination.ts',
  'src/db/storable-text.ts',
  'src/clients/vocabulary.ts',
]);

/** Packages without I/O, which the domain may use for values. */
const PURE_PACKAGES = new Set(['zod', 'node:crypto', 'libphonenumber-js']);

const IMPORT =
  /^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;

/** The imports of one source text, in order (static imports and re-exports, and dynamic imports). */
export function importsOf(text: string): Omit<Import, 'target'>[] {
  const found: Omit<Import, 'target'>[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const specifier = (match[3] ?? match[4]) as string;
    const typeOnly = match[2] !== undefined;
    found.push({ specifier, typeOnly, relative: specifier.startsWith('.') });
  }
  return found;
}

/** Every import that breaks a rule of the floors, as `file -> target (why)`. */
export function violations(graph: ReadonlyMap<string, readonly Import[]>): string[] {
  const found: string[] = [];
  for (const [file, imports] of graph) {
    const from = floorOf(file);
    if (!from) continue;
    for (const { target, typeOnly, relative } of imports) {
      if (!relative) {
        if (from === 'domain' && !typeOnly && !PURE_PACKAGES.has(target)) {
          found.push(
            `${file} -> ${target} (the domain does no I/O: no package but ${[...PURE_PACKAGES].join(', ')})`,
          );
        }
        continue;
      }
      const to = floorOf(target);
      if (!to) {
        found.push(`${file} -> ${target} (a file on no floor)`);
        continue;
      }
      if (RANK[to] > RANK[from]) found.push(`${file} -> ${target} (${from} imports ${to}, a floor above)`);
      else if (from === 'domain' && to === 'kernel' && !typeOnly && !PURE_KERNEL.has(target)) {
        found.push(
          `${file} -> ${target} (the domain uses the kernel's pure modules only, and the rest for types)`,
        );
      }
    }
  }
  return found;
}

/** The import circles of the graph, each as its files in sorted order (Tarjan's strongly connected components). */
export function cycles(graph: ReadonlyMap<string, readonly Import[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  let next = 0;
  const edges = (file: string) => (graph.get(file) ?? []).filter((i) => i.relative && graph.has(i.target));
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const { target } of edges(file)) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file) as number, low.get(target) as number));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file) as number, index.get(target) as number));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      const selfImport = edges(file).some((i) => i.target === file);
      if (component.length > 1 || selfImport) found.push(component.sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}
