import { z } from 'zod';
import { startTestApp } from './support/app.ts';
const t = await startTestApp({ routes: [(app) => { app.post('/w', { config: { access: 'public' }, schema: { body: z.object({ qty: z.number().int().positive(), n: z.string().nullable(), o: z.string().optional() }) } }, async () => 'x'); }] });
const doc = (await t.app.inject({ url: '/openapi.json' })).json();
console.log(doc.openapi, JSON.stringify(doc.paths['/w'].post, null, 1));
await t.close();
