import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { AppError } from '../../src/errors.ts';
import type { ZodApp } from '../../src/http/routes.ts';

const require = createRequire(import.meta.url);
const own = (name: string) => fileURLToPath(new URL(`./assets/${name}`, import.meta.url));

/**
 * The console's files, read once: its script and styles, and uPlot (the chart library) from
 * node_modules as its package ships it. No CDN: the page's policy allows this origin's files only.
 */
const FILES: Record<string, { path: () => string; type: string }> = {
  'console.js': { path: () => own('console.js'), type: 'text/javascript; charset=utf-8' },
  'console.css': { path: () => own('console.css'), type: 'text/css; charset=utf-8' },
  'uPlot.iife.min.js': {
    path: () => require.resolve('uplot/dist/uPlot.iife.min.js'),
    type: 'text/javascript; charset=utf-8',
  },
  'uPlot.min.css': {
    path: () => require.resolve('uplot/dist/uPlot.min.css'),
    type: 'text/css; charset=utf-8',
  },
};

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

let loaded: Map<string, Asset> | undefined;
function assets(): Map<string, Asset> {
  loaded ??= new Map(
    Object.entries(FILES).map(([name, { path, type }]) => {
      const body = readFileSync(path());
      return [
        name,
        { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` },
      ];
    }),
  );
  return loaded;
}

/** GET /admin/assets/:file: public (the sign-in page needs them too); nothing in them is secret. */
export function assetRoutes(app: ZodApp): void {
  app.get(
    '/admin/assets/:file',
    {
      config: { access: 'public' },
      schema: { hide: true, params: z.object({ file: z.string().max(64) }) },
    },
    async (request, reply) => {
      const asset = assets().get(request.params.file);
      if (!asset) throw new AppError('not_found', `No console file ${request.params.file}.`);
      reply.header('etag', asset.etag).header('cache-control', 'no-cache');
      if (request.headers['if-none-match'] === asset.etag) return reply.status(304).send();
      return reply.type(asset.type).send(asset.body);
    },
  );
}
