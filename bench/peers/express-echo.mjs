// The ceiling of the comparison: a bare express 5 app that answers
// POST /api/v2/payments/initiates with the parsed JSON body, and
// GET /health with 200. No validation, no state, no logging.
// Usage: node bench/peers/express-echo.mjs [--port 4790] [--host 127.0.0.1]
import { parseArgs } from 'node:util';
import express from 'express';

const { values } = parseArgs({ options: { port: { type: 'string', default: '4790' }, host: { type: 'string', default: '127.0.0.1' } } });
const app = express();
app.post('/api/v2/payments/initiates', express.json(), (req, res) => {
  res.json(req.body);
});
app.get('/health', (_req, res) => {
  res.json({ status: 'ok' });
});
app.listen(Number(values.port), values.host);
