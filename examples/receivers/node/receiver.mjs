// A merchant's receiver for the provider's notifications: acknowledges every delivery as the
// provider's current webhook page asks, and processes each event once.
// Run: node examples/receivers/node/receiver.mjs   (PORT, default 3000; HOST, default 127.0.0.1)
import express from 'express';

// Notifications are not signed and the same event can arrive twice, in any order: eventId is the only
// way to tell a repeat. In memory here; a real app keeps it with its orders.
const seen = new Set();
const events = []; // what was processed, for GET /events

const app = express();
app.use(express.json());

app.post('/webhook', (req, res) => {
  // The sender matches the reply against the reference it sent; one we made up never matches,
  // so without it there is no way to acknowledge.
  const ackReference = req.get('X-Expected-Ack-Reference');
  if (!ackReference) return res.status(400).json({ error: 'missing X-Expected-Ack-Reference' });
  for (const { notificationRequestItem: item } of req.body?.notificationItems ?? []) {
    // A repeat is still acknowledged below, or the sender would keep retrying it; it is not processed again.
    if (!item || seen.has(item.eventId)) continue;
    seen.add(item.eventId);
    const data = item.data ?? {};
    console.log(item.eventType, item.eventId, data.reference ?? data.transactionRef ?? '-', data.code ?? '-');
    events.push(item);
  }
  // Exactly this, within 5 s: a bare 200 or {"status":"success"} counts as not acknowledged and is retried.
  res.json({ ackReference, status: 'received' });
});

app.get('/events', (req, res) => res.json(events));

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';
app.listen(port, host, (error) => {
  if (error) throw error; // a port in use would otherwise end the process without a word
  console.log(`receiver listening on http://${host}:${port}/webhook`);
});
