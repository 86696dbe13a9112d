package db

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/casegraph/casegraph/engine"
)

func snapshotRow(t *testing.T, id string, version int64, c *engine.Case) caseRow {
	t.Helper()
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return caseRow{ID: id, Version: version, Snapshot: string(b)}
}

// TestSnapshotCache: a kept state answers only the row of its version and
// its very snapshot, as a copy nobody else holds; anything else is a miss
// and is decoded.
func TestSnapshotCache(t *testing.T) {
	cache := newSnapshotCache(1 << 20)
	state := &engine.Case{ID: "c1", Tenant: "acme", Name: "Permit", Sequence: 3, File: map[string]any{"a": int64(1)}}
	row := snapshotRow(t, "c1", 2, state)
	cache.keep("c1", 2, row.Snapshot, state.CloneStored())

	got, ok := cache.state(row)
	if !ok || got.Sequence != 3 || got.File["a"] != int64(1) {
		t.Fatalf("state(row written) = %+v, %v", got, ok)
	}
	got.File["a"] = int64(2)
	if again, _ := cache.state(row); again.File["a"] != int64(1) {
		t.Fatalf("a reader's change reached the kept state: %v", again.File)
	}

	// Another write of the same version (one that was rolled back, or
	// another replica's) carries other bytes: decoded, and dropped.
	other := state.Clone()
	other.Sequence = 4
	if _, ok := cache.state(snapshotRow(t, "c1", 2, other)); ok {
		t.Fatal("a row of the same version with another snapshot was answered from the cache")
	}
	if _, ok := cache.state(row); ok {
		t.Fatal("the entry a differing row of its version showed stale is still kept")
	}

	// A row older than the entry leaves it; a newer one drops it.
	cache.keep("c1", 5, row.Snapshot, state.CloneStored())
	if _, ok := cache.state(caseRow{ID: "c1", Version: 4, Snapshot: row.Snapshot}); ok {
		t.Fatal("an older row was answered")
	}
	if _, ok := cache.state(caseRow{ID: "c1", Version: 5, Snapshot: row.Snapshot}); !ok {
		t.Fatal("reading an older row dropped the newer entry")
	}
	if _, ok := cache.state(caseRow{ID: "c1", Version: 6, Snapshot: row.Snapshot}); ok {
		t.Fatal("a newer row was answered")
	}
	if n := len(cache.byID); n != 0 {
		t.Fatalf("%d entries after a newer row, want 0", n)
	}
	// An older write kept after a newer one does not replace it.
	cache.keep("c1", 7, row.Snapshot, state.CloneStored())
	cache.keep("c1", 6, row.Snapshot, state.CloneStored())
	if _, ok := cache.state(caseRow{ID: "c1", Version: 7, Snapshot: row.Snapshot}); !ok {
		t.Fatal("an older write replaced the newer entry")
	}
}

// TestSnapshotCacheBounds: the oldest writes go first once the snapshots
// kept pass the limit, and a snapshot over maxCachedSnapshot is not kept.
func TestSnapshotCacheBounds(t *testing.T) {
	state := &engine.Case{ID: "c", Tenant: "acme"}
	row := snapshotRow(t, "c", 1, state)
	cache := newSnapshotCache(3 * len(row.Snapshot))
	for _, id := range []string{"a", "b", "c", "d"} {
		cache.keep(id, 1, row.Snapshot, state.CloneStored())
	}
	if cache.bytes != 3*len(row.Snapshot) || len(cache.byID) != 3 || cache.byID["a"] != nil {
		t.Fatalf("bytes %d, entries %d (a kept: %v), want the three newest", cache.bytes, len(cache.byID), cache.byID["a"] != nil)
	}
	huge := strings.Repeat(" ", maxCachedSnapshot+1)
	cache.keep("d", 2, huge, state.CloneStored())
	if cache.byID["d"] != nil {
		t.Fatal("a snapshot over the limit was kept")
	}
}

// TestCloneStoredDecodesAlike: the states kept are the ones their
// snapshots decode to, to the last empty map.
func TestCloneStoredDecodesAlike(t *testing.T) {
	c := &engine.Case{ID: "c1", FileStates: map[string]engine.State{}, FileTransitions: map[string]string{}, FileCurrent: map[string]int{},
		Team: engine.Team{Members: []engine.Member{{ID: "alice", Type: engine.UserMember, Mappings: []engine.GroupMapping{}}}}}
	row := snapshotRow(t, "c1", 1, c)
	checkCachedCase(row, c.CloneStored())
	defer func() {
		if p := recover(); p == nil || !strings.Contains(p.(string), "Case.FileStates") {
			t.Fatalf("a plain Clone with empty maps passed the check: %v", p)
		}
	}()
	checkCachedCase(row, c.Clone())
}
