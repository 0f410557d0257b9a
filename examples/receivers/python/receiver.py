"""A merchant's receiver for the provider's notifications, standard library only.

Acknowledges every delivery as the provider's current webhook page asks, and
processes each event once. Run: python3 examples/receivers/python/receiver.py
(PORT, default 3000; HOST, default 127.0.0.1).
"""
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# Notifications are not signed and the same event can arrive twice, in any order:
# eventId is the only way to tell a repeat. In memory here; a real app keeps it with its orders.
seen = set()
events = []  # what was processed, for GET /events
lock = threading.Lock()  # one thread per request: two copies of an event may arrive together


class Receiver(BaseHTTPRequestHandler):
    def reply(self, status, value):
        body = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path != "/events":
            return self.reply(404, {"error": "not found"})
        with lock:
            self.reply(200, events)

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path != "/webhook":
            return self.reply(404, {"error": "not found"})
        # The sender matches the reply against the reference it sent; one we made up never
        # matches, so without it there is no way to acknowledge.
        ack_reference = self.headers.get("X-Expected-Ack-Reference")
        if not ack_reference:
            return self.reply(400, {"error": "missing X-Expected-Ack-Reference"})
        try:
            items = json.loads(raw).get("notificationItems") or []
        except (ValueError, AttributeError):
            return self.reply(400, {"error": "the body is not a notification"})
        for entry in items:
            item = entry.get("notificationRequestItem")
            with lock:
                # A repeat is still acknowledged below, or the sender would keep retrying it;
                # it is not processed again.
                if not item or item.get("eventId") in seen:
                    continue
                seen.add(item.get("eventId"))
                events.append(item)
            data = item.get("data") or {}
            reference = data.get("reference") or data.get("transactionRef") or "-"
            print(item.get("eventType"), item.get("eventId"), reference, data.get("code", "-"), flush=True)
        # Exactly this, within 5 s: a bare 200 or {"status": "success"} counts as not
        # acknowledged and is retried.
        self.reply(200, {"ackReference": ack_reference, "status": "received"})


if __name__ == "__main__":
    host, port = os.environ.get("HOST", "127.0.0.1"), int(os.environ.get("PORT", "3000"))
    server = ThreadingHTTPServer((host, port), Receiver)
    print(f"receiver listening on http://{host}:{port}/webhook", flush=True)
    server.serve_forever()
