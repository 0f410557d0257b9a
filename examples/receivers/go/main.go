// A merchant's receiver for the provider's notifications, standard library only.
// It acknowledges every delivery as the provider's current webhook page asks, and
// processes each event once. Run: go run examples/receivers/go/main.go
// (PORT, default 3000; HOST, default 127.0.0.1).
package main

import (
	"encoding/json"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"sync"
)

// Notifications are not signed and the same event can arrive twice, in any order:
// eventId is the only way to tell a repeat. In memory here; a real app keeps it
// with its orders. The mutex: each request has its own goroutine.
var (
	mu     sync.Mutex
	seen   = map[string]bool{}
	events = []json.RawMessage{} // what was processed, for GET /events
)

func webhook(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	// The sender matches the reply against the reference it sent; one we made up
	// never matches, so without it there is no way to acknowledge.
	ackReference := r.Header.Get("X-Expected-Ack-Reference")
	if ackReference == "" {
		http.Error(w, "missing X-Expected-Ack-Reference", http.StatusBadRequest)
		return
	}
	var body struct {
		NotificationItems []struct {
			Item json.RawMessage `json:"notificationRequestItem"`
		} `json:"notificationItems"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, "the body is not a notification", http.StatusBadRequest)
		return
	}
	for _, entry := range body.NotificationItems {
		var item struct {
			EventType string         `json:"eventType"`
			EventID   string         `json:"eventId"`
			Data      map[string]any `json:"data"`
		}
		if json.Unmarshal(entry.Item, &item) != nil {
			continue
		}
		// A repeat is still acknowledged below, or the sender would keep retrying
		// it; it is not processed again.
		mu.Lock()
		repeat := seen[item.EventID]
		seen[item.EventID] = true
		if !repeat {
			events = append(events, entry.Item)
		}
		mu.Unlock()
		if repeat {
			continue
		}
		reference := item.Data["reference"]
		if reference == nil {
			reference = item.Data["transactionRef"]
		}
		fmt.Println(item.EventType, item.EventID, orDash(reference), orDash(item.Data["code"]))
	}
	// Exactly this, within 5 s: a bare 200 or {"status":"success"} counts as not
	// acknowledged and is retried.
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]string{"ackReference": ackReference, "status": "received"})
}

func listEvents(w http.ResponseWriter, r *http.Request) {
	mu.Lock()
	defer mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(events)
}

func orDash(value any) any {
	if value == nil {
		return "-"
	}
	return value
}

func env(name, fallback string) string {
	if value := os.Getenv(name); value != "" {
		return value
	}
	return fallback
}

func main() {
	http.HandleFunc("/webhook", webhook)
	http.HandleFunc("/events", listEvents)
	addr := net.JoinHostPort(env("HOST", "127.0.0.1"), env("PORT", "3000"))
	fmt.Printf("receiver listening on http://%s/webhook\n", addr)
	log.Fatal(http.ListenAndServe(addr, nil))
}
