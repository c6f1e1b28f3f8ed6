// The slow target's own thread (bench/lib/slow-target.ts): an HTTP server on loopback that answers
// every request after `answerMs` with a small JSON body. Plain JavaScript: worker threads load it
// without the TypeScript loader.
import { createServer } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

const server = createServer((req, res) => {
  setTimeout(() => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: true, path: req.url }));
  }, workerData.answerMs);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
parentPort.on('message', (message) => {
  if (message === 'close') server.close(() => parentPort.close());
});
