// A merchant's notification receiver for the benchmarks: answers every POST
// as the provider's current webhook page asks, 200 with the
// X-Expected-Ack-Reference echoed and status "received", at once.
// Usage: node bench/peers/ack-receiver.mjs --port N
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { port: { type: 'string', default: '0' } } });
let received = 0;
createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (req.method === 'POST') received += 1;
    const body = req.method === 'POST' ? { ackReference: req.headers['x-expected-ack-reference'], status: 'received' } : { received };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
}).listen(Number(values.port), '127.0.0.1');
